#include "cpu/silu_table.h"

#include <cmath>
#include <cstdint>
#include <memory>

#include "core/dtype.h"

namespace gradops {
namespace cpu {
namespace {

constexpr int kEntries = 1 << 16;

// g(x) in float64, in the grouping of the float32 formula (silu_driver.cc),
// so that NaN and infinities come out alike (x = +-inf: NaN, as the
// reference gives). 1 - s comes from e directly, never as a difference.
double SiluGrad(double x) {
  const double e = std::exp(-std::fabs(x));
  const double inv = 1.0 / (1.0 + e);
  const double s = x >= 0.0 ? inv : e * inv;
  const double one_minus_s = x >= 0.0 ? e * inv : inv;
  return s * (1.0 + x * one_minus_s);
}

std::unique_ptr<float[]> BuildTable(float (*decode)(uint16_t)) {
  std::unique_ptr<float[]> table(new float[kEntries]);
  for (int bits = 0; bits < kEntries; ++bits) {
    table[bits] = static_cast<float>(SiluGrad(decode(static_cast<uint16_t>(bits))));
  }
  return table;
}

}  // namespace

const float* SiluGradTable(DType dtype) {
  switch (dtype) {
    case DType::kBFloat16: {
      static const std::unique_ptr<float[]> table = BuildTable(BFloat16ToFloat);
      return table.get();
    }
    case DType::kFloat16: {
      static const std::unique_ptr<float[]> table = BuildTable(Float16ToFloat);
      return table.get();
    }
    case DType::kFloat32: break;
  }
  return nullptr;
}

}  // namespace cpu
}  // namespace gradops
