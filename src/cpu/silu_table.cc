#include "cpu/silu_table.h"

#include <memory>

#include "cpu/silu.h"

namespace gradops {
namespace cpu {
namespace {

std::unique_ptr<float[]> BuildTable(DType dtype) {
  std::unique_ptr<float[]> table(new float[1 << 16]);
  SiluSlopes(dtype, table.get());
  return table;
}

}  // namespace

const float* SiluSlopeTable(DType dtype) {
  switch (dtype) {
    case DType::kBFloat16: {
      static const std::unique_ptr<float[]> table = BuildTable(DType::kBFloat16);
      return table.get();
    }
    case DType::kFloat16: {
      static const std::unique_ptr<float[]> table = BuildTable(DType::kFloat16);
      return table.get();
    }
    case DType::kFloat32: break;
  }
  return nullptr;
}

}  // namespace cpu
}  // namespace gradops
