// Kernel-side tiling structs: plain structs of uint32_t fields, in
// AscendC::tiling and, as kernels spell them, unqualified.
#pragma once

#include <cstdint>

#include "gradops_ascendc/norm_tiling_fields.h"

namespace AscendC {
namespace tiling {

#define GRADOPS_ASCENDC_PLAIN_FIELD(name) uint32_t name = 0;
struct LayerNormGradTiling {
  GRADOPS_ASCENDC_LAYER_NORM_GRAD_TILING_FIELDS(GRADOPS_ASCENDC_PLAIN_FIELD)
};
struct LayerNormGradBetaTiling {
  GRADOPS_ASCENDC_LAYER_NORM_GRAD_BETA_TILING_FIELDS(GRADOPS_ASCENDC_PLAIN_FIELD)
};
#undef GRADOPS_ASCENDC_PLAIN_FIELD

static_assert(sizeof(LayerNormGradTiling) == 30 * 4, "LayerNormGradTiling: 30 uint32 fields");
static_assert(sizeof(LayerNormGradBetaTiling) == 20 * 4, "LayerNormGradBetaTiling: 20 uint32 fields");

}  // namespace tiling

using tiling::LayerNormGradBetaTiling;
using tiling::LayerNormGradTiling;

}  // namespace AscendC

using AscendC::tiling::LayerNormGradBetaTiling;
using AscendC::tiling::LayerNormGradTiling;
