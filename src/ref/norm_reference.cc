// Float64 reference of the norm operators, term by term as in the documents.
#include <cmath>

#include "ref/reference.h"

namespace gradops {
namespace ref {
namespace {

int64_t Product(const int64_t* shape, int first, int last) {
  int64_t p = 1;
  for (int d = first; d < last; ++d) p *= shape[d];
  return p;
}

}  // namespace

// aclnnLayerNormBackward:
//   res_for_gamma = (input - mean) * rstd,  dy_g = gradOut * weight
//   temp_1 = 1/N * sum_N(dy_g),  temp_2 = 1/N * res_for_gamma * sum_N(dy_g * res_for_gamma)
//   gradInput = (dy_g - (temp_1 + temp_2)) * rstd
//   gradWeight = sum_M(gradOut * res_for_gamma),  gradBias = sum_M(gradOut)
NormGrads LayerNormBackward(const LayerNormBackwardArgs& a) {
  const int lead = a.x.rank - a.normalized_rank;
  const int64_t M = Product(a.x.shape, 0, lead), N = Product(a.x.shape, lead, a.x.rank);
  const std::vector<double> grad_out = Read(a.dy), input = Read(a.x), mean = Read(a.mean), rstd = Read(a.rstd);
  const std::vector<double> weight = a.gamma ? Read(*a.gamma) : std::vector<double>(N, 1.0);
  NormGrads out;
  out.dx.assign(M * N, 0.0);
  out.dgamma.assign(N, 0.0);
  out.dbeta.assign(N, 0.0);
  for (int64_t m = 0; m < M; ++m) {
    const double* dy = &grad_out[m * N];
    const double* x = &input[m * N];
    double sum_dy_g = 0, sum_dy_g_res = 0;
    for (int64_t n = 0; n < N; ++n) {
      const double res_for_gamma = (x[n] - mean[m]) * rstd[m];
      const double dy_g = dy[n] * weight[n];
      sum_dy_g += dy_g;
      sum_dy_g_res += dy_g * res_for_gamma;
      out.dgamma[n] += dy[n] * res_for_gamma;
      out.dbeta[n] += dy[n];
    }
    for (int64_t n = 0; n < N; ++n) {
      const double res_for_gamma = (x[n] - mean[m]) * rstd[m];
      const double dy_g = dy[n] * weight[n];
      const double temp_1 = sum_dy_g / N;
      const double temp_2 = res_for_gamma * sum_dy_g_res / N;
      out.dx[m * N + n] = (dy_g - (temp_1 + temp_2)) * rstd[m];
    }
  }
  return out;
}

// AscendC LayerNormGrad, per row of H values:
//   pd_xl = dy * gamma
//   pd_var = sum_H(-0.5 * pd_xl * (x - mean) * (variance + eps)^-1.5)
//   pd_mean = sum_H(-pd_xl * (variance + eps)^-0.5) + pd_var / H * sum_H(-2 * (x - mean))
//   pd_x = pd_xl * (variance + eps)^-0.5 + pd_var * 2 / H * (x - mean) + pd_mean / H
//   res_for_gamma = (x - mean) * (variance + eps)^-0.5
NormGrads LayerNormGrad(const LayerNormGradArgs& a) {
  const int64_t H = a.x.shape[a.x.rank - 1], M = Product(a.x.shape, 0, a.x.rank - 1);
  const double inv_h = 1.0 / static_cast<double>(a.mean_count ? a.mean_count : H);  // the documents' 1/H
  const std::vector<double> data_dy = Read(a.dy), data_x = Read(a.x), data_variance = Read(a.variance),
                            data_mean = Read(a.mean), data_gamma = Read(a.gamma);
  const double eps = a.epsilon;
  NormGrads out;
  out.dx.assign(M * H, 0.0);
  out.res_for_gamma.assign(M * H, 0.0);
  for (int64_t m = 0; m < M; ++m) {
    const double* dy = &data_dy[m * H];
    const double* x = &data_x[m * H];
    const double var_eps = data_variance[m] + eps, mu = data_mean[m];
    double pd_var = 0, sum_pd_xl_rstd = 0, sum_x_minus_mean = 0;
    for (int64_t h = 0; h < H; ++h) {
      const double pd_xl = dy[h] * data_gamma[h];
      pd_var += -0.5 * pd_xl * (x[h] - mu) * std::pow(var_eps, -1.5);
      sum_pd_xl_rstd += -pd_xl * std::pow(var_eps, -0.5);
      sum_x_minus_mean += -2.0 * (x[h] - mu);
    }
    const double pd_mean = sum_pd_xl_rstd + pd_var * inv_h * sum_x_minus_mean;
    for (int64_t h = 0; h < H; ++h) {
      const double pd_xl = dy[h] * data_gamma[h];
      out.dx[m * H + h] = pd_xl * std::pow(var_eps, -0.5) + pd_var * (2.0 * inv_h) * (x[h] - mu) + pd_mean * inv_h;
      out.res_for_gamma[m * H + h] = (x[h] - mu) * std::pow(var_eps, -0.5);
    }
  }
  return out;
}

// AscendC LayerNormGradBeta: pd_gamma = sum_{B,S}(dy * res_for_gamma), pd_beta = sum_{B,S}(dy).
NormGrads LayerNormGradBeta(const LayerNormGradBetaArgs& a) {
  const int64_t H = a.dy.shape[a.dy.rank - 1], M = Product(a.dy.shape, 0, a.dy.rank - 1);
  const std::vector<double> dy = Read(a.dy), res_for_gamma = Read(a.res_for_gamma);
  NormGrads out;
  out.dgamma.assign(H, 0.0);
  out.dbeta.assign(H, 0.0);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t h = 0; h < H; ++h) {
      out.dgamma[h] += dy[m * H + h] * res_for_gamma[m * H + h];
      out.dbeta[h] += dy[m * H + h];
    }
  }
  return out;
}

// ATB RmsNormBackward: x1 = x * rstd; dgamma = sum_rows(dy * x1);
//   dx = rstd * (dy * gamma - x1 * mean_D(dy * gamma * x1))
NormGrads RmsNormBackward(const RmsNormBackwardArgs& a) {
  const int lead = a.x.rank - a.gamma.rank;
  const int64_t M = Product(a.x.shape, 0, lead), D = Product(a.x.shape, lead, a.x.rank);
  const std::vector<double> dy = Read(a.dy), x = Read(a.x), rstd = Read(a.rstd), gamma = Read(a.gamma);
  NormGrads out;
  out.dx.assign(M * D, 0.0);
  out.dgamma.assign(D, 0.0);
  for (int64_t m = 0; m < M; ++m) {
    double sum_dy_gamma_x1 = 0;
    for (int64_t d = 0; d < D; ++d) {
      const double x1 = x[m * D + d] * rstd[m];
      sum_dy_gamma_x1 += dy[m * D + d] * gamma[d] * x1;
      out.dgamma[d] += dy[m * D + d] * x1;
    }
    const double mean_dy_gamma_x1 = sum_dy_gamma_x1 / D;
    for (int64_t d = 0; d < D; ++d) {
      const double x1 = x[m * D + d] * rstd[m];
      out.dx[m * D + d] = rstd[m] * (dy[m * D + d] * gamma[d] - x1 * mean_dy_gamma_x1);
    }
  }
  return out;
}

NormStats LayerNormStats(const std::vector<double>& x, int64_t M, int64_t N, double epsilon) {
  NormStats s;
  for (int64_t m = 0; m < M; ++m) {
    double mean = 0, variance = 0;
    for (int64_t n = 0; n < N; ++n) mean += x[m * N + n];
    mean /= N;
    for (int64_t n = 0; n < N; ++n) variance += (x[m * N + n] - mean) * (x[m * N + n] - mean);
    variance /= N;
    s.mean.push_back(mean);
    s.variance.push_back(variance);
    s.rstd.push_back(1.0 / std::sqrt(variance + epsilon));
  }
  return s;
}

std::vector<double> LayerNormForward(const std::vector<double>& x, const std::vector<double>& gamma,
                                     const std::vector<double>& beta, int64_t M, int64_t N, double epsilon) {
  const NormStats s = LayerNormStats(x, M, N, epsilon);
  std::vector<double> y(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) y[m * N + n] = (x[m * N + n] - s.mean[m]) * s.rstd[m] * gamma[n] + beta[n];
  return y;
}

std::vector<double> RmsNormRstd(const std::vector<double>& x, int64_t M, int64_t N, double epsilon) {
  std::vector<double> rstd;
  for (int64_t m = 0; m < M; ++m) {
    double sum_sq = 0;
    for (int64_t n = 0; n < N; ++n) sum_sq += x[m * N + n] * x[m * N + n];
    rstd.push_back(1.0 / std::sqrt(sum_sq / N + epsilon));
  }
  return rstd;
}

std::vector<double> RmsNormForward(const std::vector<double>& x, const std::vector<double>& gamma, int64_t M,
                                   int64_t N, double epsilon) {
  const std::vector<double> rstd = RmsNormRstd(x, M, N, epsilon);
  std::vector<double> y(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) y[m * N + n] = x[m * N + n] * rstd[m] * gamma[n];
  return y;
}

}  // namespace ref
}  // namespace gradops
