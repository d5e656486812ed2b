// Layouts: merging of dimensions and the row-major offset walk.
#include <gtest/gtest.h>

#include <vector>

#include "core/layout.h"

namespace gradops {
namespace {

std::vector<int64_t> Walk(const Layout& l, int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  ForEachOffset(l, begin, end, [&](int64_t o) { v.push_back(o); });
  return v;
}

TEST(Layout, MergesContiguousDimsAndDropsOnes) {
  const int64_t shape[4] = {2, 1, 3, 4}, strides[4] = {12, 99, 4, 1};
  const Layout l = MakeLayout(shape, strides, 0, 4);
  EXPECT_EQ(l.rank, 1);
  EXPECT_EQ(l.size[0], 24);
  EXPECT_TRUE(l.unit());
  const Layout rows = MakeLayout(shape, strides, 0, 2), cols = MakeLayout(shape, strides, 2, 4);
  EXPECT_EQ(rows.numel(), 2);
  EXPECT_EQ(cols.numel(), 12);
}

TEST(Layout, TransposedKeepsDims) {
  const int64_t shape[2] = {3, 4}, strides[2] = {1, 3};
  const Layout l = MakeLayout(shape, strides, 0, 2);
  EXPECT_EQ(l.rank, 2);
  EXPECT_FALSE(l.unit());
  EXPECT_EQ(Walk(l, 0, 12), (std::vector<int64_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(l.Offset(i), Walk(l, 0, 12)[i]);
}

TEST(Layout, WalksAnyRangeAndEmpty) {
  const int64_t shape[3] = {2, 3, 5}, strides[3] = {100, 10, 2};
  const Layout l = MakeLayout(shape, strides, 0, 3);
  const std::vector<int64_t> all = Walk(l, 0, 30);
  for (int64_t b = 0; b <= 30; b += 7) {
    for (int64_t e = b; e <= 30; e += 4) {
      EXPECT_EQ(Walk(l, b, e), std::vector<int64_t>(all.begin() + b, all.begin() + e));
    }
  }
  const int64_t empty_shape[2] = {3, 0};
  EXPECT_EQ(MakeLayout(empty_shape, strides, 0, 2).numel(), 0);
  const int64_t ones[2] = {1, 1};
  const Layout scalar = MakeLayout(ones, strides, 0, 2);
  EXPECT_EQ(scalar.rank, 0);
  EXPECT_EQ(Walk(scalar, 0, 1), std::vector<int64_t>{0});
}

TEST(Layout, BroadcastDimsMerge) {
  const int64_t shape[3] = {4, 5, 6}, strides[3] = {0, 0, 1};
  const Layout l = MakeLayout(shape, strides, 0, 3);
  EXPECT_EQ(l.rank, 2);
  EXPECT_EQ(l.size[0], 20);
  EXPECT_EQ(l.stride[0], 0);
  EXPECT_EQ(l.max_offset(), 5);
}

}  // namespace
}  // namespace gradops
