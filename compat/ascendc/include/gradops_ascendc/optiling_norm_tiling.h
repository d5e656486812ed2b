// Host-side optiling::LayerNormGradTiling and LayerNormGradBetaTiling: the
// plain kernel structs plus set_/get_ accessors and SaveToBuffer. Deriving
// from the plain struct keeps one layout, and lets a tiling class member
// declared with TILING_DATA_FIELD_DEF_STRUCT be passed to the kernel APIs.
#pragma once

#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"

namespace optiling {

#define GRADOPS_ASCENDC_ACCESSORS(field)                          \
  void set_##field(uint32_t value) { this->field = value; }       \
  uint32_t get_##field() const { return this->field; }

class LayerNormGradTiling : public AscendC::tiling::LayerNormGradTiling,
                            public TilingDataSerializer<LayerNormGradTiling> {
 public:
  GRADOPS_ASCENDC_LAYER_NORM_GRAD_TILING_FIELDS(GRADOPS_ASCENDC_ACCESSORS)
};

class LayerNormGradBetaTiling : public AscendC::tiling::LayerNormGradBetaTiling,
                                public TilingDataSerializer<LayerNormGradBetaTiling> {
 public:
  GRADOPS_ASCENDC_LAYER_NORM_GRAD_BETA_TILING_FIELDS(GRADOPS_ASCENDC_ACCESSORS)
};

#undef GRADOPS_ASCENDC_ACCESSORS

static_assert(sizeof(LayerNormGradTiling) == sizeof(AscendC::tiling::LayerNormGradTiling), "same bytes");
static_assert(sizeof(LayerNormGradBetaTiling) == sizeof(AscendC::tiling::LayerNormGradBetaTiling), "same bytes");

}  // namespace optiling
