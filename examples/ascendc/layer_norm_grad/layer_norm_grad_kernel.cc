// The LayerNormGrad example kernel: each block takes rowsPerBlock rows,
// moves them to the UB tile by tile through double-buffered queues, calls
// AscendC::LayerNormGrad on each tile and moves pdX and resForGamma back.
#include "layer_norm_grad_kernel.h"

#include <type_traits>

#include "layer_norm_grad_tiling.h"

namespace layer_norm_grad_example {

constexpr int32_t kBufferNum = 2;

template <typename T, bool isReuseSource>
class KernelLayerNormGrad {
 public:
  __aicore__ inline KernelLayerNormGrad() {}

  __aicore__ inline void Init(GM_ADDR dy, GM_ADDR x, GM_ADDR variance, GM_ADDR mean, GM_ADDR gamma, GM_ADDR pdX,
                              GM_ADDR resForGamma, const optiling::LayerNormGradExampleTiling& tilingData) {
    tiling_ = tilingData.layerNormGradTiling;
    epsilon_ = tilingData.epsilon;
    tmpBytes_ = tilingData.tmpBytes;
    tileRows_ = tilingData.tileRows;
    tiles_ = tilingData.rowsPerBlock / tileRows_;
    h_ = tiling_.hLength;
    const uint64_t firstRow = static_cast<uint64_t>(AscendC::GetBlockIdx()) * tilingData.rowsPerBlock;
    const uint64_t blockElements = uint64_t{tilingData.rowsPerBlock} * h_;
    dyGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dy) + firstRow * h_, blockElements);
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + firstRow * h_, blockElements);
    pdXGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(pdX) + firstRow * h_, blockElements);
    resGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(resForGamma) + firstRow * h_, blockElements);
    varianceGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(variance) + firstRow, tilingData.rowsPerBlock);
    meanGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(mean) + firstRow, tilingData.rowsPerBlock);
    gammaGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gamma), h_);

    const uint32_t tileBytes = tileRows_ * h_ * sizeof(T);
    pipe_.InitBuffer(inQueueDy_, kBufferNum, tileBytes);
    pipe_.InitBuffer(inQueueX_, kBufferNum, tileBytes);
    pipe_.InitBuffer(inQueueVariance_, kBufferNum, tileRows_ * sizeof(T));
    pipe_.InitBuffer(inQueueMean_, kBufferNum, tileRows_ * sizeof(T));
    pipe_.InitBuffer(outQueuePdX_, kBufferNum, tileBytes);
    pipe_.InitBuffer(outQueueRes_, kBufferNum, tileBytes);
    pipe_.InitBuffer(gammaBuf_, h_ * sizeof(T));
    if (tmpBytes_ > 0) pipe_.InitBuffer(tmpBuf_, tmpBytes_);
  }

  __aicore__ inline void Process() {
    AscendC::LocalTensor<T> gamma = gammaBuf_.template Get<T>();
    AscendC::DataCopy(gamma, gammaGm_, h_);
    for (uint32_t tile = 0; tile < tiles_; ++tile) {
      CopyIn(tile);
      Compute(gamma);
      CopyOut(tile);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t tile) {
    AscendC::LocalTensor<T> dy = inQueueDy_.template AllocTensor<T>();
    AscendC::LocalTensor<T> x = inQueueX_.template AllocTensor<T>();
    AscendC::LocalTensor<T> variance = inQueueVariance_.template AllocTensor<T>();
    AscendC::LocalTensor<T> mean = inQueueMean_.template AllocTensor<T>();
    const uint32_t tileElements = tileRows_ * h_;
    AscendC::DataCopy(dy, dyGm_[tile * tileElements], tileElements);
    AscendC::DataCopy(x, xGm_[tile * tileElements], tileElements);
    AscendC::DataCopy(variance, varianceGm_[tile * tileRows_], tileRows_);
    AscendC::DataCopy(mean, meanGm_[tile * tileRows_], tileRows_);
    inQueueDy_.EnQue(dy);
    inQueueX_.EnQue(x);
    inQueueVariance_.EnQue(variance);
    inQueueMean_.EnQue(mean);
  }

  __aicore__ inline void Compute(const AscendC::LocalTensor<T>& gamma) {
    AscendC::LocalTensor<T> dy = inQueueDy_.template DeQue<T>();
    AscendC::LocalTensor<T> x = inQueueX_.template DeQue<T>();
    AscendC::LocalTensor<T> variance = inQueueVariance_.template DeQue<T>();
    AscendC::LocalTensor<T> mean = inQueueMean_.template DeQue<T>();
    AscendC::LocalTensor<T> pdX = outQueuePdX_.template AllocTensor<T>();
    AscendC::LocalTensor<T> res = outQueueRes_.template AllocTensor<T>();
    const T epsilon = static_cast<T>(epsilon_);
    if (tmpBytes_ > 0) {
      AscendC::LocalTensor<uint8_t> tmp = tmpBuf_.template Get<uint8_t>();
      AscendC::LayerNormGrad<T, isReuseSource>(pdX, res, dy, x, variance, mean, gamma, tmp, epsilon, tiling_);
    } else {
      AscendC::LayerNormGrad<T, isReuseSource>(pdX, res, dy, x, variance, mean, gamma, epsilon, tiling_);
    }
    outQueuePdX_.EnQue(pdX);
    outQueueRes_.EnQue(res);
    inQueueDy_.FreeTensor(dy);
    inQueueX_.FreeTensor(x);
    inQueueVariance_.FreeTensor(variance);
    inQueueMean_.FreeTensor(mean);
  }

  __aicore__ inline void CopyOut(uint32_t tile) {
    AscendC::LocalTensor<T> pdX = outQueuePdX_.template DeQue<T>();
    AscendC::LocalTensor<T> res = outQueueRes_.template DeQue<T>();
    const uint32_t tileElements = tileRows_ * h_;
    AscendC::DataCopy(pdXGm_[tile * tileElements], pdX, tileElements);
    AscendC::DataCopy(resGm_[tile * tileElements], res, tileElements);
    outQueuePdX_.FreeTensor(pdX);
    outQueueRes_.FreeTensor(res);
  }

  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::TPosition::VECIN, kBufferNum> inQueueDy_, inQueueX_, inQueueVariance_, inQueueMean_;
  AscendC::TQue<AscendC::TPosition::VECOUT, kBufferNum> outQueuePdX_, outQueueRes_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> gammaBuf_, tmpBuf_;
  AscendC::GlobalTensor<T> dyGm_, xGm_, varianceGm_, meanGm_, gammaGm_, pdXGm_, resGm_;
  LayerNormGradTiling tiling_;
  float epsilon_ = 0;
  uint32_t tmpBytes_ = 0, tileRows_ = 0, tiles_ = 0, h_ = 0;
};

template <typename T>
__aicore__ inline void Run(GM_ADDR dy, GM_ADDR x, GM_ADDR variance, GM_ADDR mean, GM_ADDR gamma, GM_ADDR pdX,
                           GM_ADDR resForGamma, GM_ADDR tiling) {
  if ASCEND_IS_AIC {
    return;
  }
  GET_TILING_DATA_WITH_STRUCT(optiling::LayerNormGradExampleTiling, tilingData, tiling);
  if constexpr (std::is_same<T, float>::value) {
    if (tilingData.reuseSource) {
      KernelLayerNormGrad<T, true> op;
      op.Init(dy, x, variance, mean, gamma, pdX, resForGamma, tilingData);
      op.Process();
      return;
    }
  }
  KernelLayerNormGrad<T, false> op;
  op.Init(dy, x, variance, mean, gamma, pdX, resForGamma, tilingData);
  op.Process();
}

}  // namespace layer_norm_grad_example

extern "C" __global__ __aicore__ void layer_norm_grad_float(GM_ADDR dy, GM_ADDR x, GM_ADDR variance, GM_ADDR mean,
                                                            GM_ADDR gamma, GM_ADDR pdX, GM_ADDR resForGamma,
                                                            GM_ADDR /* workspace */, GM_ADDR tiling) {
  layer_norm_grad_example::Run<float>(dy, x, variance, mean, gamma, pdX, resForGamma, tiling);
}

extern "C" __global__ __aicore__ void layer_norm_grad_half(GM_ADDR dy, GM_ADDR x, GM_ADDR variance, GM_ADDR mean,
                                                           GM_ADDR gamma, GM_ADDR pdX, GM_ADDR resForGamma,
                                                           GM_ADDR /* workspace */, GM_ADDR tiling) {
  layer_norm_grad_example::Run<half>(dy, x, variance, mean, gamma, pdX, resForGamma, tiling);
}
