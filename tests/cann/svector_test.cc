// atb::SVector: the documented interface, including lists longer than the
// inline capacity (whose size CANN's own header leaves at 0).
#include <gtest/gtest.h>

#include <numeric>
#include <sstream>
#include <vector>

#include "atb/svector.h"

namespace {

TEST(SVector, BasicOperations) {
  atb::SVector<int> v = {1, 2, 3};
  EXPECT_EQ(v.size(), 3u);
  v.push_back(4);
  v.insert(0, 0);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v.at(4), 4);
  EXPECT_THROW(v.at(5), std::out_of_range);
  EXPECT_THROW(v[5], std::out_of_range);
  EXPECT_THROW(v.insert(7, 1), std::out_of_range);
  int sum = 0;
  for (int x : v) sum += x;
  EXPECT_EQ(sum, 10);
  atb::SVector<int> copy = v;
  EXPECT_TRUE(copy == v);
  copy[1] = 9;
  EXPECT_TRUE(copy != v);
  EXPECT_TRUE(v < copy);
  EXPECT_TRUE(atb::SVector<int>({5}) < v);  // shorter first
  std::ostringstream os;
  os << atb::SVector<int>{1, 2, 3};
  EXPECT_EQ(os.str(), "1,2,3");
  v.resize(2);
  EXPECT_EQ(v.size(), 2u);
  v.clear();
  EXPECT_TRUE(v.empty());
  atb::SVector<int> filled(5, 7);
  EXPECT_EQ(filled.size(), 5u);
  EXPECT_EQ(filled[4], 7);
}

TEST(SVector, BeyondInlineCapacity) {
  std::vector<int> values(100);
  std::iota(values.begin(), values.end(), 0);
  atb::SVector<int> v;
  for (int x : values) v.push_back(x);
  EXPECT_EQ(v.size(), 100u);
  EXPECT_EQ(v[99], 99);
  v.insert(10, -1);
  EXPECT_EQ(v[10], -1);
  EXPECT_EQ(v[11], 10);
  atb::SVector<int> copy(v);
  EXPECT_TRUE(copy == v);
  atb::SVector<int> assigned;
  assigned = v;
  EXPECT_EQ(assigned.size(), 101u);
  v.reserve(200);
  EXPECT_EQ(v.size(), 101u);  // reserve keeps the contents
  EXPECT_THROW(v.resize(300), atb::MaxSizeExceeded);
  EXPECT_THROW(atb::SVector<int>(257, 0), atb::MaxSizeExceeded);
}

TEST(SVector, LongInitializerListKeepsItsSize) {
  atb::SVector<int> v = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                         23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
                         46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68};
  EXPECT_EQ(v.size(), 69u);
  EXPECT_EQ(v[68], 68);
  v = {1, 2};
  EXPECT_EQ(v.size(), 2u);
}

}  // namespace
