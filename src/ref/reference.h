// The float64 reference of the five operators: the specification that tests
// and `gradops check` compare against. Written for reading, with each term
// named as in the source documents; inputs are read through their views in
// float64, results are returned in the row-major order of the output shape.
#pragma once

#include <cstdint>
#include <vector>

#include "gradops/ops.h"

namespace gradops {
namespace ref {

// Every element of `view`, in row-major order, as double.
std::vector<double> Read(const TensorView& view);

struct NormGrads {
  std::vector<double> dx, dgamma, dbeta, res_for_gamma;
};

NormGrads LayerNormBackward(const LayerNormBackwardArgs& args);
NormGrads LayerNormGrad(const LayerNormGradArgs& args);
NormGrads LayerNormGradBeta(const LayerNormGradBetaArgs& args);
NormGrads RmsNormBackward(const RmsNormBackwardArgs& args);
std::vector<double> SiluBackward(const SiluBackwardArgs& args);

// Forward definitions, for the finite-difference checks of the above.
// x is M x N row-major; gamma and beta have N values.
struct NormStats {
  std::vector<double> mean, variance, rstd;
};
NormStats LayerNormStats(const std::vector<double>& x, int64_t M, int64_t N, double epsilon);
std::vector<double> LayerNormForward(const std::vector<double>& x, const std::vector<double>& gamma,
                                     const std::vector<double>& beta, int64_t M, int64_t N, double epsilon);
std::vector<double> RmsNormRstd(const std::vector<double>& x, int64_t M, int64_t N, double epsilon);
std::vector<double> RmsNormForward(const std::vector<double>& x, const std::vector<double>& gamma, int64_t M,
                                   int64_t N, double epsilon);
double Silu(double x);

}  // namespace ref
}  // namespace gradops
