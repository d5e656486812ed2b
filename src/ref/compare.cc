#include "ref/compare.h"

#include <algorithm>
#include <cmath>

#include "core/dtype.h"
#include "ref/tolerance.h"

namespace gradops {
namespace ref {

double RoundedTo(DType dtype, double want) {
  const float nearest = static_cast<float>(want);
  if (dtype == DType::kFloat32 || !std::isfinite(want) || static_cast<double>(nearest) == want) {
    return RoundTo(dtype, nearest);
  }
  // Rounded to odd: toward zero, then the last bit set.
  float odd = nearest;
  if (std::fabs(static_cast<double>(odd)) > std::fabs(want)) odd = std::nextafter(odd, 0.0f);
  odd = BitsFloat(FloatBits(odd) | 1u);
  return RoundTo(dtype, odd);
}

Comparison Compare(const std::vector<double>& got, const std::vector<double>& want, DType dtype) {
  Comparison c;
  if (got.size() != want.size()) {
    c.ok = false;
    return c;
  }
  const Tolerance tol = ToleranceFor(dtype);
  for (double w : want) {
    if (std::isfinite(w)) c.scale = std::max(c.scale, std::fabs(w));
  }
  size_t misrounded = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    const double best = RoundedTo(dtype, w);
    if (!(g == best || (std::isnan(g) && std::isnan(best)))) ++misrounded;
    bool ok;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = g == w;
    } else {
      const double diff = std::fabs(g - w);
      ok = diff <= tol.atol * c.scale + tol.rtol * std::fabs(w);
      if (diff / c.scale > c.max_error) {
        c.max_error = diff / c.scale;
        if (c.ok) c.worst = i;
      }
    }
    if (!ok && c.ok) {
      c.ok = false;
      c.worst = i;
    }
  }
  if (!got.empty()) c.misrounded = static_cast<double>(misrounded) / static_cast<double>(got.size());
  return c;
}

}  // namespace ref
}  // namespace gradops
