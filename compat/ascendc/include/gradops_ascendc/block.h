// The running block as a kernel sees it; GET_TILING_DATA, which copies the
// launch's tiling bytes from GM into a struct of the kernel's type; and
// TILING_KEY_IS.
#pragma once

#include <cstdint>
#include <type_traits>

#include "gradops_ascendc/runtime.h"

namespace AscendC {

inline int64_t GetBlockIdx() { return gradops::ascendc::CurrentBlockIdx(); }
inline int64_t GetBlockNum() { return gradops::ascendc::CurrentBlockNum(); }

}  // namespace AscendC

namespace gradops {
namespace ascendc {
template <typename T>
void LoadTilingData(T* dst, const void* gm_tiling) {
  static_assert(std::is_trivially_copyable<T>::value, "tiling data must be plain data");
  CopyFromGm(dst, gm_tiling, sizeof(T));
}
}  // namespace ascendc
}  // namespace gradops

// Declares `var` of type `type` holding the tiling data at GM address `tiling`.
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
  type var;                                            \
  ::gradops::ascendc::LoadTilingData(&var, (tiling))

// GET_TILING_DATA uses the tiling class the samples declare on the host,
// optiling::TilingData; define ASCENDC_TILING_DATA_TYPE to use another.
#ifndef ASCENDC_TILING_DATA_TYPE
#define ASCENDC_TILING_DATA_TYPE ::optiling::TilingData
#endif
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(ASCENDC_TILING_DATA_TYPE, var, tiling)

#define TILING_KEY_IS(key) (::gradops::ascendc::TilingKey() == static_cast<uint64_t>(key))
