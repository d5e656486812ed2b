// Conversions: float16/bfloat16 <-> float32, round to nearest even, for the
// scalar functions and the SIMD ones the kernels use.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "cpu/convert.h"
#include "ref/compare.h"
#include "test_util.h"

namespace gradops {
namespace {

// The float16/bfloat16 value nearest to f, ties to even, found by search
// over the decoded values (independent of the bit tricks under test).
uint16_t NearestBySearch(double f, float (*decode)(uint16_t)) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double target = std::fabs(f);
  uint16_t best = 0;
  double best_err = INFINITY;
  for (uint32_t h = 0; h < 0x8000; ++h) {
    const double v = decode(static_cast<uint16_t>(h));
    if (std::isnan(v)) continue;
    const double err = std::fabs(v - target);
    if (err < best_err || (err == best_err && (h & 1) == 0)) {
      best = static_cast<uint16_t>(h);
      best_err = err;
    }
  }
  return static_cast<uint16_t>(sign | best);
}

TEST(DType, Float16DecodeIsExactForAllValues) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = Float16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToFloat16(f), h) << std::hex << h;  // round trip
  }
}

TEST(DType, BFloat16DecodeIsExactForAllValues) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = BFloat16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToBFloat16(f), h) << std::hex << h;
  }
}

std::vector<float> Probes() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.0f, 65520.0f, 1e-8f, 2.98e-8f, 2.9802322e-8f,
                          5.96e-8f, 6.1e-5f, 6.103515625e-05f, 3.0e38f, 1.0f + 1.0f / 1024 / 2, 1.0f + 3.0f / 2048,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::denorm_min(), 3.3895314e38f, 1.00390625f, 1.01171875f};
  std::mt19937 rng(1);
  for (int i = 0; i < 3000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isnan(f)) continue;
    v.push_back(f);
  }
  for (int e = -30; e < 17; ++e) {  // halfway points around float16's range
    for (int m = 0; m < 8; ++m) v.push_back(std::ldexp(1.0f + (2 * m + 1) / 2048.0f, e));
  }
  return v;
}

TEST(DType, ScalarRoundsToNearestEven) {
  for (float f : Probes()) {
    const bool fits16 = std::fabs(f) < 65520.0f;
    if (fits16) EXPECT_EQ(FloatToFloat16(f), NearestBySearch(f, Float16ToFloat)) << f;
    else EXPECT_EQ(FloatToFloat16(f) & 0x7FFF, 0x7C00) << f;
    if (std::fabs(f) < 3.3961514e38f) EXPECT_EQ(FloatToBFloat16(f), NearestBySearch(f, BFloat16ToFloat)) << f;
  }
}

// The reference rounded once to a 16-bit dtype: where a double lies just
// off a tie between two 16-bit values, closer than float32 can tell, the
// side it lies on decides (float32 first, then 16 bits, would take the even
// one); and the share of elements other than that rounding.
TEST(DType, ReferenceRoundsOnceToNearestEven) {
  std::vector<double> probes;
  for (int e = -20; e < 16; ++e) {
    for (int m = 0; m < 16; ++m) {
      for (const int bits : {7, 10}) {  // bfloat16's and float16's mantissa bits
        const double tie = std::ldexp(1.0 + (2 * m + 1) / std::ldexp(1.0, bits + 1), e);
        for (const double off : {-1.0, 0.0, 1.0}) {
          probes.push_back(tie * (1.0 + off * std::ldexp(1.0, -40)));
          probes.push_back(-probes.back());
        }
      }
    }
  }
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-60000.0, 60000.0);
  for (int i = 0; i < 2000; ++i) probes.push_back(u(rng) * std::ldexp(1.0, -static_cast<int>(rng() % 30)));
  for (const double w : probes) {
    EXPECT_EQ(ref::RoundedTo(DType::kBFloat16, w), BFloat16ToFloat(NearestBySearch(w, BFloat16ToFloat))) << w;
    EXPECT_EQ(ref::RoundedTo(DType::kFloat16, w), Float16ToFloat(NearestBySearch(w, Float16ToFloat))) << w;
    EXPECT_EQ(ref::RoundedTo(DType::kFloat32, w), static_cast<double>(static_cast<float>(w))) << w;
  }
  std::vector<double> got(probes.size());
  for (size_t i = 0; i < probes.size(); ++i) got[i] = ref::RoundedTo(DType::kBFloat16, probes[i]);
  EXPECT_EQ(ref::Compare(got, probes, DType::kBFloat16).misrounded, 0.0);
  got[5] = BFloat16ToFloat(static_cast<uint16_t>(FloatToBFloat16(static_cast<float>(got[5])) + 1));
  EXPECT_EQ(ref::Compare(got, probes, DType::kBFloat16).misrounded, 1.0 / static_cast<double>(probes.size()));
}

TEST(DType, NaNStaysNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(Float16ToFloat(FloatToFloat16(nan))));
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(nan))));
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(BitsFloat(0x7F800001u)))));  // signalling
  EXPECT_TRUE(std::isnan(Float16ToFloat(FloatToFloat16(BitsFloat(0xFF800001u)))));
}

using testing::BFloat16InstructionsScope;

// The SIMD conversions agree bit for bit with the scalar ones.
void ExpectSimdMatchesScalar(const std::vector<float>& in, const char* label) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    for (size_t n : {in.size(), size_t{1}, size_t{7}, size_t{33}, size_t{64}}) {
      std::vector<uint16_t> simd(n, 0xAAAA);
      cpu::ConvertFromFloat(dtype, in.data(), simd.data(), static_cast<int64_t>(n));
      std::vector<float> back(n);
      cpu::ConvertToFloat(dtype, simd.data(), back.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        uint16_t scalar;
        StoreFromFloat(&scalar, dtype, 0, in[i]);
        if (std::isnan(in[i])) {
          EXPECT_TRUE(std::isnan(back[i])) << i;
          continue;
        }
        EXPECT_EQ(simd[i], scalar) << DTypeName(dtype) << " " << in[i] << " " << label;
        EXPECT_EQ(FloatBits(back[i]), FloatBits(LoadAsFloat(&scalar, dtype, 0))) << i;
      }
    }
  }
}

// With and without the CPU's bfloat16 instructions (where it has them).
TEST(DType, SimdMatchesScalar) {
  std::vector<float> in = Probes();
  in.push_back(std::numeric_limits<float>::quiet_NaN());
  in.push_back(BitsFloat(0x7F800001u));
  in.push_back(BitsFloat(0xFFC00001u));
  // Denormals (which vcvtne2ps2bf16 would flush to zero), one per vector
  // pair and whole vectors of them, ties included.
  for (uint32_t bits : {0x00000001u, 0x007FFFFFu, 0x00400000u, 0x00018000u, 0x00008000u, 0x00010000u, 0x0001FFFFu,
                        0x007F8000u, 0x80000003u, 0x807F8000u}) {
    in.push_back(BitsFloat(bits));
  }
  for (int i = 0; i < 64; ++i) in.push_back(BitsFloat(0x00008000u * static_cast<uint32_t>(i + 1)));
  {
    const BFloat16InstructionsScope scope(true);
    ExpectSimdMatchesScalar(in, "(bfloat16 instructions where the CPU has them)");
  }
  const BFloat16InstructionsScope scope(false);
  ExpectSimdMatchesScalar(in, "(arithmetic rounding)");
}

// Every bfloat16 rounding case, NaN payloads included, bit for bit: each
// upper half with lower halves that round down, tie (both ways by the kept
// bit) and round up, so every vector pair mixes neighbouring cases (NaN
// beside numbers, infinities of both signs), at every offset in the pairs.
TEST(DType, BFloat16RoundingMatchesScalarForEveryUpperHalf) {
  std::vector<float> in;
  for (uint32_t high = 0; high <= 0xFFFFu; ++high) {
    for (uint32_t low : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) in.push_back(BitsFloat(high << 16 | low));
  }
  for (int i = 0; i < 40; ++i) in.push_back(BitsFloat(i % 2 ? 0x7F800000u : 0xFF800000u));  // inf + -inf is NaN
  for (size_t offset : {size_t{0}, size_t{1}, size_t{5}}) {
    const size_t n = in.size() - offset;
    std::vector<uint16_t> simd(n, 0xAAAA);
    cpu::ConvertFromFloat(DType::kBFloat16, in.data() + offset, simd.data(), static_cast<int64_t>(n));
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint16_t scalar = FloatToBFloat16(in[offset + i]);
      if (simd[i] != scalar && wrong++ < 10) {
        ADD_FAILURE() << std::hex << FloatBits(in[offset + i]) << ": " << simd[i] << " against " << scalar;
      }
    }
    EXPECT_EQ(wrong, 0u) << "offset " << offset;
  }
}

// NaN too: the bits do not depend on the instructions used.
TEST(DType, BFloat16InstructionsChangeNoBit) {
  std::vector<float> in = Probes();
  for (uint32_t bits : {0x7F800001u, 0xFFC00001u, 0x7FFFFFFFu, 0x7F80FFFFu, 0x00000001u, 0x807FFFFFu}) {
    for (int i = 0; i < 40; ++i) in.push_back(BitsFloat(bits));
  }
  std::vector<uint16_t> with(in.size()), without(in.size());
  {
    const BFloat16InstructionsScope scope(true);
    cpu::ConvertFromFloat(DType::kBFloat16, in.data(), with.data(), static_cast<int64_t>(in.size()));
  }
  {
    const BFloat16InstructionsScope scope(false);
    cpu::ConvertFromFloat(DType::kBFloat16, in.data(), without.data(), static_cast<int64_t>(in.size()));
  }
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(with[i], without[i]) << std::hex << FloatBits(in[i]);
  if (!cpu::BFloat16Instructions()) {
    GTEST_SKIP() << "this CPU has no AVX512-BF16: both runs took the arithmetic path";
  }
}

// The float64 sums of float32 runs: the scalar loop's bits, for runs of
// every length around whole lines and vectors, with their neighbours in the
// buffer (past n) left alone.
TEST(DType, AddRunsFloat64MatchesScalarSums) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<float> value(-1000, 1000);
  for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{64}, int64_t{99}}) {
    for (int64_t runs : {int64_t{1}, int64_t{2}, int64_t{7}}) {
      const int64_t stride = n + 5;
      std::vector<float> in(static_cast<size_t>(runs * stride));
      for (float& v : in) v = value(rng);
      std::vector<double> start(static_cast<size_t>(n + 4));
      for (double& v : start) v = static_cast<double>(value(rng)) / 3;
      std::vector<double> want = start, got = start;
      for (int64_t r = 0; r < runs; ++r) {
        for (int64_t j = 0; j < n; ++j) want[j] += static_cast<double>(in[r * stride + j]);
      }
      cpu::AddRunsFloat64(in.data(), runs, stride, n, got.data());
      for (size_t j = 0; j < got.size(); ++j) {
        EXPECT_EQ(std::memcmp(&got[j], &want[j], sizeof(double)), 0) << "n " << n << " runs " << runs << " at " << j;
      }
    }
  }
}

// The pair orders (convert.h): whole steps of `step` values into split order
// (even values, then odd ones) and back, the values after the last whole
// step as they are, nothing past n written; the float64 form rounds each
// value; UnsplitSum gives the bits of a float64 sum of one run from +0.
TEST(DType, PairOrdersMatchTheirDefinition) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<float> value(-1000, 1000);
  const float poison = std::numeric_limits<float>::quiet_NaN();
  for (int64_t step : {int64_t{0}, int64_t{16}, int64_t{32}}) {
    for (int64_t n : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{31}, int64_t{32}, int64_t{33}, int64_t{100},
                      int64_t{256}}) {
      std::vector<float> in(static_cast<size_t>(n));
      for (float& v : in) v = value(rng);
      in[0] = -0.0f;
      if (n > 2) in[2] = std::numeric_limits<float>::infinity();
      // The definition: split[j + i] = in[j + 2i], split[j + step / 2 + i] = in[j + 2i + 1].
      std::vector<float> want = in;
      const int64_t whole = step > 0 ? n / step * step : 0;
      for (int64_t j = 0; j < whole; j += step) {
        for (int64_t i = 0; i < step / 2; ++i) want[j + i] = in[j + 2 * i], want[j + step / 2 + i] = in[j + 2 * i + 1];
      }
      std::vector<float> split(static_cast<size_t>(n + 3), poison), back(split), from64(split), sum(split);
      cpu::SplitPairs(in.data(), n, step, split.data());
      cpu::UnsplitPairs(split.data(), n, step, back.data());
      std::vector<double> wide(split.begin(), split.begin() + n);
      cpu::UnsplitPairs(wide.data(), n, step, from64.data());
      cpu::UnsplitSum(split.data(), n, step, sum.data());
      for (int64_t j = 0; j < n + 3; ++j) {
        const std::string at = "step " + std::to_string(step) + " n " + std::to_string(n) + " at " + std::to_string(j);
        if (j >= n) {  // past n: untouched
          for (const auto* v : {&split, &back, &from64, &sum}) EXPECT_TRUE(std::isnan((*v)[j])) << at;
          continue;
        }
        EXPECT_EQ(std::memcmp(&split[j], &want[j], sizeof(float)), 0) << at;
        EXPECT_EQ(std::memcmp(&back[j], &in[j], sizeof(float)), 0) << at;
        EXPECT_EQ(std::memcmp(&from64[j], &in[j], sizeof(float)), 0) << at;
        const float one_run = static_cast<float>(0.0 + static_cast<double>(in[j]));
        EXPECT_EQ(std::memcmp(&sum[j], &one_run, sizeof(float)), 0) << at;
      }
      EXPECT_FALSE(std::signbit(sum[0])) << "-0 summed from +0 is +0";
    }
  }
}

}  // namespace
}  // namespace gradops
