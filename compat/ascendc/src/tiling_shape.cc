// Host tiling argument checks (tiling_shape.h).
#include "tiling_shape.h"

#include <cstdarg>
#include <cstdio>
#include <limits>

namespace gradops {
namespace ascendc {

void HostError(const char* api, const char* function, const char* format, ...) {
  std::fprintf(stderr, "[ERROR] [%s][%s] ", api, function);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
}

bool ReadNormTilingShape(const char* api, const char* function, const ge::Shape& shape, uint32_t type_size,
                         NormTilingShape* out) {
  if (type_size != 2 && type_size != 4) {
    HostError(api, function, "typeSize %u is unsupported: use 2 (half) or 4 (float)", type_size);
    return false;
  }
  if (shape.GetDimNum() != 4) {
    HostError(api, function, "srcShape has %zu dims; it must be 4: {B, S, storageHLength, originHLength}",
              shape.GetDimNum());
    return false;
  }
  constexpr int64_t kMax = std::numeric_limits<uint32_t>::max();
  for (size_t i = 0; i < 4; ++i) {
    if (shape.GetDim(i) <= 0 || shape.GetDim(i) > kMax) {
      HostError(api, function, "srcShape[%zu] = %lld must be in [1, 2^32)", i, static_cast<long long>(shape.GetDim(i)));
      return false;
    }
  }
  if (shape.GetDim(3) > shape.GetDim(2)) {
    HostError(api, function, "originHLength %lld exceeds storageHLength %lld", static_cast<long long>(shape.GetDim(3)),
              static_cast<long long>(shape.GetDim(2)));
    return false;
  }
  if (shape.GetDim(0) * shape.GetDim(1) > kMax / shape.GetDim(2)) {
    HostError(api, function, "B * S * H does not fit in uint32");
    return false;
  }
  out->b = static_cast<uint32_t>(shape.GetDim(0));
  out->s = static_cast<uint32_t>(shape.GetDim(1));
  out->h = static_cast<uint32_t>(shape.GetDim(2));
  out->original_h = static_cast<uint32_t>(shape.GetDim(3));
  return true;
}

}  // namespace ascendc
}  // namespace gradops
