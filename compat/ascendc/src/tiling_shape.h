// Argument checks shared by the host tiling functions. A failed check logs
// "[ERROR] [api][function] message" on stderr and the function returns
// without touching its outputs.
#pragma once

#include <cstdint>

#include "graph/tensor.h"

namespace gradops {
namespace ascendc {

struct NormTilingShape {
  uint32_t b = 0, s = 0, h = 0, original_h = 0;
};

void HostError(const char* api, const char* function, const char* format, ...);

// srcShape is {B, S, H, originH}, all positive, H at least originH, and
// the element count fits in uint32; typeSize is 2 or 4.
bool ReadNormTilingShape(const char* api, const char* function, const ge::Shape& shape, uint32_t type_size,
                         NormTilingShape* out);

}  // namespace ascendc
}  // namespace gradops
