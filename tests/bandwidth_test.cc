// The benchmark's bandwidth kernels (cpu/triad.h) against double sums on
// random data, at lengths with and without a tail: a ceiling measured with a
// kernel that skips or repeats elements would be no ceiling.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/triad.h"

namespace gradops {
namespace testing {
namespace {

constexpr int64_t kLengths[] = {0, 1, 15, 16, 17, 63, 64, 1000, 4099};

std::vector<float> Random(std::mt19937_64& rng, int64_t n) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = u(rng);
  return v;
}

TEST(Bandwidth, TriadWritesEveryElementAndNothingPast) {
  std::mt19937_64 rng(7);
  for (const bool nontemporal : {false, true}) {
    for (const int64_t n : kLengths) {
      const std::vector<float> b = Random(rng, n), c = Random(rng, n);
      constexpr float kPoison = -1234.5f;
      struct Free {
        void operator()(float* p) const { std::free(p); }
      };
      const size_t bytes = (static_cast<size_t>(n + 16) * sizeof(float) + 63) / 64 * 64;
      std::unique_ptr<float, Free> a(static_cast<float*>(std::aligned_alloc(64, bytes)));
      for (int64_t i = 0; i < n + 16; ++i) a.get()[i] = kPoison;
      cpu::Triad(a.get(), b.data(), c.data(), 3.0f, n, nontemporal);
      for (int64_t i = 0; i < n; ++i) {
        const double want = static_cast<double>(b[i]) + 3.0 * static_cast<double>(c[i]);
        ASSERT_NEAR(a.get()[i], want, 1e-6 * (std::fabs(want) + 8.0)) << "n " << n << " i " << i;
      }
      for (int64_t i = n; i < n + 16; ++i) ASSERT_EQ(a.get()[i], kPoison) << "n " << n << " i " << i;
    }
  }
}

TEST(Bandwidth, ReadTwoSumsEveryProduct) {
  std::mt19937_64 rng(8);
  for (const int64_t n : kLengths) {
    const std::vector<float> b = Random(rng, n), c = Random(rng, n);
    double want = 0, magnitude = 0;
    for (int64_t i = 0; i < n; ++i) {
      want += static_cast<double>(b[i]) * c[i];
      magnitude += std::fabs(static_cast<double>(b[i]) * c[i]);
    }
    EXPECT_NEAR(cpu::ReadTwo(b.data(), c.data(), n), want, 1e-6 * magnitude + 1e-30) << "n " << n;
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
