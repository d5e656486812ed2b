// Checks the float64 reference itself: its gradients must match central
// finite differences of float64 forward definitions of LayerNorm, RMSNorm and
// SiLU, for the loss L = sum(dy * y).
#include <cmath>

#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

constexpr double kEps = 1e-5;     // the forward's epsilon
constexpr double kStep = 1e-6;    // finite-difference step
constexpr double kTol = 1e-6;     // relative to the largest gradient

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// d/dv[i] of f(v), central differences.
template <class F>
std::vector<double> NumericGradient(std::vector<double> v, F f) {
  std::vector<double> g(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double keep = v[i];
    v[i] = keep + kStep;
    const double up = f(v);
    v[i] = keep - kStep;
    const double down = f(v);
    v[i] = keep;
    g[i] = (up - down) / (2 * kStep);
  }
  return g;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  double scale = 1e-3;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], kTol * scale * 10) << what << "[" << i << "]";
  }
}

// Float64 tensors built from double data (exact for the reference).
std::vector<double> Random(std::mt19937_64& rng, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

// Holds doubles as float32 views would lose precision: the reference reads
// views, so feed it float32 data and compare against a forward computed on the
// same float32-representable values.
std::vector<double> ToFloat(std::vector<double> v) {
  for (double& x : v) x = static_cast<float>(x);
  return v;
}

TEST(FiniteDifference, LayerNormReference) {
  std::mt19937_64 rng(31);
  const int64_t M = 3, N = 7;
  const std::vector<double> x = ToFloat(Random(rng, M * N, -2, 2)), dy = ToFloat(Random(rng, M * N, -1, 1));
  const std::vector<double> gamma = ToFloat(Random(rng, N, -2, 2)), beta = ToFloat(Random(rng, N, -1, 1));
  const ref::NormStats stats = ref::LayerNormStats(x, M, N, kEps);

  // Reference gradients through float32 views of the same values; mean and
  // rstd are float64 quantities, so pass them as float32 too and accept the
  // rounding (relative 6e-8) in the tolerance below.
  Tensor tdy(DType::kFloat32, {M, N}), tx(DType::kFloat32, {M, N}), tg(DType::kFloat32, {N});
  Tensor tmean(DType::kFloat32, {M}), trstd(DType::kFloat32, {M});
  tdy.FillValues(std::vector<float>(dy.begin(), dy.end()));
  tx.FillValues(std::vector<float>(x.begin(), x.end()));
  tg.FillValues(std::vector<float>(gamma.begin(), gamma.end()));
  tmean.FillValues(std::vector<float>(stats.mean.begin(), stats.mean.end()));
  trstd.FillValues(std::vector<float>(stats.rstd.begin(), stats.rstd.end()));
  LayerNormBackwardArgs a;
  a.dy = tdy.view(); a.x = tx.view(); a.mean = tmean.view(); a.rstd = trstd.view(); a.gamma = &tg.view();
  const ref::NormGrads got = ref::LayerNormBackward(a);

  auto loss_x = [&](const std::vector<double>& v) { return Dot(dy, ref::LayerNormForward(v, gamma, beta, M, N, kEps)); };
  auto loss_g = [&](const std::vector<double>& v) { return Dot(dy, ref::LayerNormForward(x, v, beta, M, N, kEps)); };
  auto loss_b = [&](const std::vector<double>& v) { return Dot(dy, ref::LayerNormForward(x, gamma, v, M, N, kEps)); };
  // float32 mean/rstd: allow 1e-6 relative, far below any formula error.
  ExpectClose(got.dx, NumericGradient(x, loss_x), "dx");
  ExpectClose(got.dgamma, NumericGradient(gamma, loss_g), "dgamma");
  ExpectClose(got.dbeta, NumericGradient(beta, loss_b), "dbeta");

  // The variance/epsilon form equals it when mean and variance are x's own.
  Tensor tvar(DType::kFloat32, {M});
  tvar.FillValues(std::vector<float>(stats.variance.begin(), stats.variance.end()));
  LayerNormGradArgs g;
  g.dy = tdy.view(); g.x = tx.view(); g.variance = tvar.view(); g.mean = tmean.view(); g.gamma = tg.view();
  g.epsilon = static_cast<float>(kEps);
  ExpectClose(ref::LayerNormGrad(g).dx, NumericGradient(x, loss_x), "pd_x");
}

TEST(FiniteDifference, RmsNormReference) {
  std::mt19937_64 rng(32);
  const int64_t M = 4, N = 9;
  const std::vector<double> x = ToFloat(Random(rng, M * N, -2, 2)), dy = ToFloat(Random(rng, M * N, -1, 1));
  const std::vector<double> gamma = ToFloat(Random(rng, N, -2, 2));
  const std::vector<double> rstd = ref::RmsNormRstd(x, M, N, kEps);
  Tensor tdy(DType::kFloat32, {M, N}), tx(DType::kFloat32, {M, N}), tg(DType::kFloat32, {N}), tr(DType::kFloat32, {M});
  tdy.FillValues(std::vector<float>(dy.begin(), dy.end()));
  tx.FillValues(std::vector<float>(x.begin(), x.end()));
  tg.FillValues(std::vector<float>(gamma.begin(), gamma.end()));
  tr.FillValues(std::vector<float>(rstd.begin(), rstd.end()));
  RmsNormBackwardArgs a;
  a.dy = tdy.view(); a.x = tx.view(); a.rstd = tr.view(); a.gamma = tg.view();
  const ref::NormGrads got = ref::RmsNormBackward(a);
  auto loss_x = [&](const std::vector<double>& v) { return Dot(dy, ref::RmsNormForward(v, gamma, M, N, kEps)); };
  auto loss_g = [&](const std::vector<double>& v) { return Dot(dy, ref::RmsNormForward(x, v, M, N, kEps)); };
  ExpectClose(got.dx, NumericGradient(x, loss_x), "dx");
  ExpectClose(got.dgamma, NumericGradient(gamma, loss_g), "dgamma");
}

TEST(FiniteDifference, SiluReference) {
  std::mt19937_64 rng(33);
  const std::vector<double> x = ToFloat(Random(rng, 50, -12, 12)), dy = ToFloat(Random(rng, 50, -2, 2));
  Tensor tdy(DType::kFloat32, {50}), tx(DType::kFloat32, {50}), tdx(DType::kFloat32, {50});
  tdy.FillValues(std::vector<float>(dy.begin(), dy.end()));
  tx.FillValues(std::vector<float>(x.begin(), x.end()));
  SiluBackwardArgs a;
  a.dy = tdy.view(); a.x = tx.view(); a.dx = tdx.view();
  const std::vector<double> got = ref::SiluBackward(a);
  for (size_t i = 0; i < x.size(); ++i) {
    const double numeric = dy[i] * (ref::Silu(x[i] + kStep) - ref::Silu(x[i] - kStep)) / (2 * kStep);
    EXPECT_NEAR(got[i], numeric, 1e-7) << "x = " << x[i];
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
