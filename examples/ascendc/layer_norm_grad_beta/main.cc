// Host program of the LayerNormGradBeta example, in the CPU-debug style: the
// documented 1x8x8 case (dy = resForGamma = 0..63) on 2 blocks, each block
// reducing 4 rows, the host adding the blocks' partial sums.
#include <cstdint>
#include <cstdio>

#include "kernel_operator.h"
#include "layer_norm_grad_beta_kernel.h"
#include "layer_norm_grad_beta_tiling.h"
#include "tikicpulib.h"

int main() {
  constexpr uint32_t kRows = 8, kH = 8, kBlockDim = 2;
  float* res = static_cast<float*>(AscendC::GmAlloc(kRows * kH * sizeof(float)));
  float* dy = static_cast<float*>(AscendC::GmAlloc(kRows * kH * sizeof(float)));
  float* pdGamma = static_cast<float*>(AscendC::GmAlloc(kBlockDim * kH * sizeof(float)));
  float* pdBeta = static_cast<float*>(AscendC::GmAlloc(kBlockDim * kH * sizeof(float)));
  for (uint32_t i = 0; i < kRows * kH; ++i) res[i] = dy[i] = static_cast<float>(i);

  layer_norm_grad_beta_example::Problem problem;
  problem.rows = kRows;
  problem.h = kH;
  problem.typeSize = sizeof(float);
  problem.blockDim = kBlockDim;
  optiling::LayerNormGradBetaExampleTiling tiling = layer_norm_grad_beta_example::MakeTiling(problem);
  uint8_t* tilingGm = static_cast<uint8_t*>(AscendC::GmAlloc(tiling.GetDataSize()));
  tiling.SaveToBuffer(tilingGm, tiling.GetDataSize());

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(layer_norm_grad_beta_float, kBlockDim, reinterpret_cast<uint8_t*>(res), reinterpret_cast<uint8_t*>(dy),
              reinterpret_cast<uint8_t*>(pdGamma), reinterpret_cast<uint8_t*>(pdBeta), tilingGm);

  const float expectGamma[kH] = {8960, 9416, 9888, 10376, 10880, 11400, 11936, 12488};
  const float expectBeta[kH] = {224, 232, 240, 248, 256, 264, 272, 280};
  bool pass = true;
  std::printf("pd_gamma:");
  for (uint32_t j = 0; j < kH; ++j) {
    const float gamma = pdGamma[j] + pdGamma[kH + j], beta = pdBeta[j] + pdBeta[kH + j];
    std::printf(" %g", gamma);
    pass = pass && gamma == expectGamma[j] && beta == expectBeta[j];
  }
  std::printf("\n%s\n", pass ? "test pass!" : "test failed!");
  for (void* p : {static_cast<void*>(res), static_cast<void*>(dy), static_cast<void*>(pdGamma),
                  static_cast<void*>(pdBeta), static_cast<void*>(tilingGm)}) {
    AscendC::GmFree(p);
  }
  return pass ? 0 : 1;
}
