// Float64 reference of SiLU backward (aclnnSiluBackward):
//   sigma(x) = 1 / (1 + e^-x),  s(x) = x * sigma(x)
//   s'(x) = sigma(x) * (1 + x - x * sigma(x)),  gradInput = gradOutput * s'(x)
#include <cmath>

#include "ref/reference.h"

namespace gradops {
namespace ref {

double Silu(double x) { return x / (1.0 + std::exp(-x)); }

std::vector<double> SiluBackward(const SiluBackwardArgs& a) {
  const std::vector<double> grad_output = Read(a.dy), self = Read(a.x);
  const int rank = a.dx.rank;
  const int64_t n = a.dx.numel();
  std::vector<double> grad_input(static_cast<size_t>(n));
  // Row-major linear index of an input, broadcast (aligned at the right).
  auto source = [&](const TensorView& in, int64_t out_linear) {
    int64_t linear = 0, scale = 1;
    for (int d = rank - 1, k = in.rank - 1; k >= 0; --d, --k) {
      const int64_t index = (out_linear % a.dx.shape[d]);
      out_linear /= a.dx.shape[d];
      linear += (in.shape[k] == 1 ? 0 : index) * scale;
      scale *= in.shape[k];
    }
    return linear;
  };
  for (int64_t i = 0; i < n; ++i) {
    const double x = self[source(a.x, i)];
    const double sigma = 1.0 / (1.0 + std::exp(-x));
    const double s_prime = sigma * (1.0 + x - x * sigma);
    grad_input[i] = grad_output[source(a.dy, i)] * s_prime;
  }
  return grad_input;
}

}  // namespace ref
}  // namespace gradops
