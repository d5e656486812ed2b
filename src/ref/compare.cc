#include "ref/compare.h"

#include <algorithm>
#include <cmath>

#include "ref/tolerance.h"

namespace gradops {
namespace ref {

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
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
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
  return c;
}

}  // namespace ref
}  // namespace gradops
