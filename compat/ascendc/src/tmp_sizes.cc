// Temporary-space formulas (tmp_sizes.h). Products saturate at UINT32_MAX.
#include "tmp_sizes.h"

#include <algorithm>
#include <limits>

namespace gradops {
namespace ascendc {
namespace {

uint32_t Saturate(uint64_t v) {
  return static_cast<uint32_t>(std::min<uint64_t>(v, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

uint32_t LayerNormGradBufferCount(uint32_t type_size, bool reuse_source) {
  if (type_size == 2) return 9;
  return reuse_source ? 4 : 6;
}

TmpBytes LayerNormGradTmpBytes(uint64_t b, uint64_t s, uint64_t h, uint32_t type_size, bool reuse_source) {
  const uint64_t input = b * s * h, square = h * h;
  const uint64_t per_element = uint64_t{LayerNormGradBufferCount(type_size, reuse_source)} * type_size;
  return TmpBytes{Saturate(per_element * std::max(input, square)), Saturate(per_element * std::min(input, square))};
}

TmpBytes LayerNormGradBetaTmpBytes(uint64_t b, uint64_t s, uint64_t h, uint32_t type_size) {
  const uint64_t buffers = type_size == 2 ? 4 : 2;
  return TmpBytes{Saturate(buffers * b * s * h * sizeof(float)), Saturate(buffers * h * sizeof(float))};
}

}  // namespace ascendc
}  // namespace gradops
