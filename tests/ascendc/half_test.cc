// `half`: round-to-nearest-even conversion and float arithmetic.
#include <gtest/gtest.h>

#include "kernel_operator.h"

namespace {

TEST(AscendCHalf, ConvertsWithRoundToNearestEven) {
  EXPECT_EQ(half(1.0f).bits(), 0x3C00);
  EXPECT_EQ(half(-2.0).bits(), 0xC000);
  EXPECT_EQ(half(65504.0f).bits(), 0x7BFF);
  EXPECT_EQ(half(1e6f).bits(), 0x7C00);                 // overflow: infinity
  EXPECT_EQ(half(1.0f + 1.0f / 2048).bits(), 0x3C00);   // tie: to even
  EXPECT_EQ(half(1.0f + 3.0f / 2048).bits(), 0x3C02);   // tie: to even (up)
  EXPECT_EQ(float(half::FromBits(0x0001)), 5.9604644775390625e-8f);
  EXPECT_EQ(half(3), 3.0f);
}

TEST(AscendCHalf, ArithmeticRoundsEachResult) {
  const half a = 1.0f, b = 1.0f / 4096;
  const half sum = a + b;  // 1 + 2^-12 rounds back to 1 in half
  EXPECT_EQ(float(sum), 1.0f);
  const float mixed = a + 0.5f;  // mixed with float computes in float
  EXPECT_EQ(mixed, 1.5f);
  half c = 3.0f;
  c *= half(0.5f);
  EXPECT_EQ(float(c), 1.5f);
  EXPECT_TRUE(c > 1 && c < half(2.0f) && -c == -1.5f);
}

}  // namespace
