// AscendC::LayerNormGradBeta: pd_gamma = sum over rows of dy * res_for_gamma
// and pd_beta = sum over rows of dy, for tiling.bLength * tiling.sLength
// rows of tiling.hLength elements. Computed by the gradops core (float32
// sums in a fixed order, results rounded to T).
#pragma once

#include "gradops_ascendc/local_tensor.h"
#include "gradops_ascendc/norm_calls.h"
#include "gradops_ascendc/norm_dtype.h"

namespace AscendC {

namespace internal {
template <typename T, bool isReuseSource>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const gradops::ascendc::BufferRef* tmp, const LayerNormGradBetaTiling& tiling) {
  gradops::ascendc::LayerNormGradBetaCall call;
  call.dtype = gradops::ascendc::NormDType<T, isReuseSource>();
  call.reuse_source = isReuseSource;
  call.pd_gamma = outputPdGamma.ref();
  call.pd_beta = outputPdBeta.ref();
  call.res_for_gamma = resForGamma.ref();
  call.dy = inputDy.ref();
  call.tmp = tmp;
  call.tiling = &tiling;
  gradops::ascendc::RunLayerNormGradBeta(call);
}
}  // namespace internal

template <typename T, bool isReuseSource = false>
__aicore__ inline void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                                         const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                                         const LocalTensor<uint8_t>& sharedTmpBuffer,
                                         const LayerNormGradBetaTiling& tiling) {
  internal::LayerNormGradBeta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                                &sharedTmpBuffer.ref(), tiling);
}

template <typename T, bool isReuseSource = false>
__aicore__ inline void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                                         const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                                         LayerNormGradBetaTiling& tiling) {
  internal::LayerNormGradBeta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy, nullptr, tiling);
}

}  // namespace AscendC
