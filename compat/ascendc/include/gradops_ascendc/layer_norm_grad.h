// AscendC::LayerNormGrad: pd_x and res_for_gamma of a LayerNorm from dy, x,
// variance, mean and gamma, over tiling.bLength * tiling.sLength rows of
// tiling.hLength elements, with 1/H factors of 1/tiling.originalHLength.
// Computed by the gradops core (float32 arithmetic, results rounded to T).
#pragma once

#include "gradops_ascendc/local_tensor.h"
#include "gradops_ascendc/norm_calls.h"
#include "gradops_ascendc/norm_dtype.h"

namespace AscendC {

enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

struct LayerNormGradShapeInfo {
  DataFormat dataFormat = DataFormat::ND;
};

namespace internal {
template <typename T, bool isReuseSource>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                   const LocalTensor<T>& inputX, const LocalTensor<T>& inputVariance,
                   const LocalTensor<T>& inputMean, const LocalTensor<T>& inputGamma,
                   const gradops::ascendc::BufferRef* tmp, T epsilon, const LayerNormGradTiling& tiling,
                   const LayerNormGradShapeInfo& shapeInfo) {
  if (shapeInfo.dataFormat != DataFormat::ND) gradops::ascendc::Fail("LayerNormGrad", "only the ND format is provided");
  gradops::ascendc::LayerNormGradCall call;
  call.dtype = gradops::ascendc::NormDType<T, isReuseSource>();
  call.reuse_source = isReuseSource;
  call.pd_x = outputPdX.ref();
  call.res_for_gamma = resForGamma.ref();
  call.dy = inputDy.ref();
  call.x = inputX.ref();
  call.variance = inputVariance.ref();
  call.mean = inputMean.ref();
  call.gamma = inputGamma.ref();
  call.tmp = tmp;
  call.epsilon = static_cast<float>(epsilon);
  call.tiling = &tiling;
  gradops::ascendc::RunLayerNormGrad(call);
}
}  // namespace internal

template <typename T, bool isReuseSource = false>
__aicore__ inline void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                                     const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                                     const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                                     const LocalTensor<T>& inputGamma, LocalTensor<uint8_t>& sharedTmpBuffer,
                                     T epsilon, LayerNormGradTiling& tiling,
                                     const LayerNormGradShapeInfo& shapeInfo = {}) {
  internal::LayerNormGrad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                            inputGamma, &sharedTmpBuffer.ref(), epsilon, tiling, shapeInfo);
}

template <typename T, bool isReuseSource = false>
__aicore__ inline void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                                     const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                                     const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                                     const LocalTensor<T>& inputGamma, T epsilon, LayerNormGradTiling& tiling,
                                     const LayerNormGradShapeInfo& shapeInfo = {}) {
  internal::LayerNormGrad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                            inputGamma, nullptr, epsilon, tiling, shapeInfo);
}

}  // namespace AscendC
