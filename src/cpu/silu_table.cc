#include "cpu/silu_table.h"

#include <memory>

#include "cpu/silu.h"

namespace gradops {
namespace cpu {
namespace {

// One table per dtype and way of dividing, built on first use.
template <DType kDType, bool kDivide>
const float* TableOf() {
  static const std::unique_ptr<float[]> table = [] {
    std::unique_ptr<float[]> g(new float[1 << 16]);
    SiluSlopes(kDType, kDivide, g.get());
    return g;
  }();
  return table.get();
}

}  // namespace

const float* SiluSlopeTable(DType dtype, bool divide) {
  switch (dtype) {
    case DType::kBFloat16:
      return divide ? TableOf<DType::kBFloat16, true>() : TableOf<DType::kBFloat16, false>();
    case DType::kFloat16:
      return divide ? TableOf<DType::kFloat16, true>() : TableOf<DType::kFloat16, false>();
    case DType::kFloat32: break;
  }
  return nullptr;
}

}  // namespace cpu
}  // namespace gradops
