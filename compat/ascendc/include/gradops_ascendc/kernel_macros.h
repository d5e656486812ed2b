// The qualifiers and core-type macros of AscendC kernel code as a CPU build
// sees them: address-space and entry-point qualifiers expand to nothing,
// GM_ADDR is a byte pointer into global memory, and ASCEND_IS_AIC /
// ASCEND_IS_AIV are parenthesised so that `if ASCEND_IS_AIC {` compiles.
#pragma once

#include <cstdint>

#define __aicore__
#define __global__
#define __vector__
#define __gm__
#define __ubuf__

#define GM_ADDR __gm__ uint8_t*

namespace gradops {
namespace ascendc {
bool IsCubeCore();    // the running block is an AI Cube core (AIC_MODE)
bool IsVectorCore();  // the running block is an AI Vector core (AIV_MODE)
}  // namespace ascendc
}  // namespace gradops

#define ASCEND_IS_AIC (::gradops::ascendc::IsCubeCore())
#define ASCEND_IS_AIV (::gradops::ascendc::IsVectorCore())
#define ASCEND_IS_NOT_AIC (!::gradops::ascendc::IsCubeCore())
#define ASCEND_IS_NOT_AIV (!::gradops::ascendc::IsVectorCore())
