// The LayerNormGradBeta example kernel: each block moves its rows of
// resForGamma and dy to the UB, calls AscendC::LayerNormGradBeta once and
// writes its partial pdGamma and pdBeta to row GetBlockIdx() of the outputs.
#include "layer_norm_grad_beta_kernel.h"

#include <type_traits>

namespace layer_norm_grad_beta_example {

struct BetaKernelTiling {
  uint32_t rowsPerBlock;
  uint32_t tmpBytes;
  uint32_t reuseSource;
  LayerNormGradBetaTiling layerNormGradBetaTiling;
};

__aicore__ inline void CopyTiling(BetaKernelTiling* tiling, GM_ADDR tilingGm) {
  uint32_t* dst = reinterpret_cast<uint32_t*>(tiling);
  auto src = reinterpret_cast<__gm__ uint32_t*>(tilingGm);
  for (size_t i = 0; i < sizeof(BetaKernelTiling) / sizeof(uint32_t); ++i) dst[i] = src[i];
}

template <typename T, bool isReuseSource>
class KernelLayerNormGradBeta {
 public:
  __aicore__ inline KernelLayerNormGradBeta() {}

  __aicore__ inline void Init(GM_ADDR resForGamma, GM_ADDR dy, GM_ADDR pdGamma, GM_ADDR pdBeta,
                              const BetaKernelTiling& tilingData) {
    tiling_ = tilingData.layerNormGradBetaTiling;
    tmpBytes_ = tilingData.tmpBytes;
    h_ = tiling_.hLength;
    elements_ = tilingData.rowsPerBlock * h_;
    const uint64_t block = static_cast<uint64_t>(AscendC::GetBlockIdx());
    resGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(resForGamma) + block * elements_, elements_);
    dyGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dy) + block * elements_, elements_);
    pdGammaGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(pdGamma) + block * h_, h_);
    pdBetaGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(pdBeta) + block * h_, h_);
    pipe_.InitBuffer(inQueueRes_, 1, elements_ * sizeof(T));
    pipe_.InitBuffer(inQueueDy_, 1, elements_ * sizeof(T));
    pipe_.InitBuffer(outQueueGamma_, 1, h_ * sizeof(T));
    pipe_.InitBuffer(outQueueBeta_, 1, h_ * sizeof(T));
    if (tmpBytes_ > 0) pipe_.InitBuffer(tmpQueue_, 1, tmpBytes_);
  }

  __aicore__ inline void Process() {
    CopyIn();
    Compute();
    CopyOut();
  }

 private:
  __aicore__ inline void CopyIn() {
    AscendC::LocalTensor<T> res = inQueueRes_.AllocTensor<T>();
    AscendC::LocalTensor<T> dy = inQueueDy_.AllocTensor<T>();
    AscendC::DataCopy(res, resGm_, elements_);
    AscendC::DataCopy(dy, dyGm_, elements_);
    inQueueRes_.EnQue(res);
    inQueueDy_.EnQue(dy);
  }

  __aicore__ inline void Compute() {
    AscendC::LocalTensor<T> res = inQueueRes_.DeQue<T>();
    AscendC::LocalTensor<T> dy = inQueueDy_.DeQue<T>();
    AscendC::LocalTensor<T> pdGamma = outQueueGamma_.AllocTensor<T>();
    AscendC::LocalTensor<T> pdBeta = outQueueBeta_.AllocTensor<T>();
    if (tmpBytes_ > 0) {
      AscendC::LocalTensor<uint8_t> tmp = tmpQueue_.AllocTensor<uint8_t>();
      AscendC::LayerNormGradBeta<T, isReuseSource>(pdGamma, pdBeta, res, dy, tmp, tiling_);
      tmpQueue_.FreeTensor(tmp);
    } else {
      AscendC::LayerNormGradBeta<T, isReuseSource>(pdGamma, pdBeta, res, dy, tiling_);
    }
    outQueueGamma_.EnQue(pdGamma);
    outQueueBeta_.EnQue(pdBeta);
    inQueueRes_.FreeTensor(res);
    inQueueDy_.FreeTensor(dy);
  }

  __aicore__ inline void CopyOut() {
    AscendC::LocalTensor<T> pdGamma = outQueueGamma_.DeQue<T>();
    AscendC::LocalTensor<T> pdBeta = outQueueBeta_.DeQue<T>();
    AscendC::DataCopy(pdGammaGm_, pdGamma, h_);
    AscendC::DataCopy(pdBetaGm_, pdBeta, h_);
    outQueueGamma_.FreeTensor(pdGamma);
    outQueueBeta_.FreeTensor(pdBeta);
  }

  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueRes_, inQueueDy_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueGamma_, outQueueBeta_;
  AscendC::TQue<AscendC::QuePosition::VECCALC, 1> tmpQueue_;
  AscendC::GlobalTensor<T> resGm_, dyGm_, pdGammaGm_, pdBetaGm_;
  LayerNormGradBetaTiling tiling_;
  uint32_t tmpBytes_ = 0, h_ = 0, elements_ = 0;
};

template <typename T>
__aicore__ inline void Run(GM_ADDR resForGamma, GM_ADDR dy, GM_ADDR pdGamma, GM_ADDR pdBeta, GM_ADDR tiling) {
  if ASCEND_IS_AIC {
    return;
  }
  BetaKernelTiling tilingData;
  CopyTiling(&tilingData, tiling);
  if constexpr (std::is_same<T, float>::value) {
    if (tilingData.reuseSource) {
      KernelLayerNormGradBeta<T, true> op;
      op.Init(resForGamma, dy, pdGamma, pdBeta, tilingData);
      op.Process();
      return;
    }
  }
  KernelLayerNormGradBeta<T, false> op;
  op.Init(resForGamma, dy, pdGamma, pdBeta, tilingData);
  op.Process();
}

}  // namespace layer_norm_grad_beta_example

extern "C" __global__ __aicore__ void layer_norm_grad_beta_float(GM_ADDR resForGamma, GM_ADDR dy, GM_ADDR pdGamma,
                                                                 GM_ADDR pdBeta, GM_ADDR tiling) {
  layer_norm_grad_beta_example::Run<float>(resForGamma, dy, pdGamma, pdBeta, tiling);
}

extern "C" __global__ __aicore__ void layer_norm_grad_beta_half(GM_ADDR resForGamma, GM_ADDR dy, GM_ADDR pdGamma,
                                                                GM_ADDR pdBeta, GM_ADDR tiling) {
  layer_norm_grad_beta_example::Run<half>(resForGamma, dy, pdGamma, pdBeta, tiling);
}
