// Comparison against the float64 reference (test_util.h).
#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ascendc_test {

template <typename T>
std::string Compare(const T* got, const std::vector<double>& want, double rtol, double atol) {
  double scale = 1.0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<float>(got[i]);
    const double err = std::fabs(g - want[i]);
    if (!(err <= atol * scale + rtol * std::fabs(want[i]))) {
      std::ostringstream s;
      s << "element " << i << ": got " << g << ", want " << want[i] << " (error " << err << ")";
      return s.str();
    }
  }
  return "";
}

template std::string Compare<float>(const float*, const std::vector<double>&, double, double);
template std::string Compare<half>(const half*, const std::vector<double>&, double, double);

}  // namespace ascendc_test
