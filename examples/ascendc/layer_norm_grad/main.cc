// Host program of the LayerNormGrad example, in the CPU-debug style: data
// in GmAlloc memory, tiling from the host API, ICPU_RUN_KF on 4 blocks,
// results checked against the documented formulas evaluated in double.
// Rows are 60 values zero-padded to H = 64 (originalHLength = 60).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "kernel_operator.h"
#include "layer_norm_grad_kernel.h"
#include "layer_norm_grad_tiling.h"
#include "tikicpulib.h"

namespace {

constexpr uint32_t kB = 4, kS = 32, kH = 64, kOriginH = 60, kBlockDim = 4;
constexpr float kEpsilon = 1e-5f;

float* AllocFloats(size_t n) { return static_cast<float*>(AscendC::GmAlloc(n * sizeof(float))); }

// The seed's formulas, one row of H values, in double; pad columns are 0.
void Golden(const float* dy, const float* x, double variance, double mean, const float* gamma, double* pdX,
            double* res) {
  const double rstd = 1.0 / std::sqrt(variance + kEpsilon);
  double pdVar = 0, sumPdXl = 0, sumXMinusMean = 0;
  for (uint32_t j = 0; j < kH; ++j) {
    const double pdXl = double(dy[j]) * gamma[j];
    pdVar += -0.5 * pdXl * (x[j] - mean) * rstd * rstd * rstd;
    sumPdXl += -pdXl * rstd;
    sumXMinusMean += -2.0 * (x[j] - mean);
  }
  const double pdMean = sumPdXl + pdVar * sumXMinusMean / kOriginH;
  for (uint32_t j = 0; j < kH; ++j) {
    pdX[j] = double(dy[j]) * gamma[j] * rstd + pdVar * 2.0 / kOriginH * (x[j] - mean) + pdMean / kOriginH;
    res[j] = (x[j] - mean) * rstd;
  }
}

}  // namespace

int main() {
  const uint32_t rows = kB * kS;
  float* dy = AllocFloats(rows * kH);
  float* x = AllocFloats(rows * kH);
  float* variance = AllocFloats(rows);
  float* mean = AllocFloats(rows);
  float* gamma = AllocFloats(kH);
  float* pdX = AllocFloats(rows * kH);
  float* res = AllocFloats(rows * kH);

  uint32_t seed = 42;
  auto uniform = [&seed](float lo, float hi) {
    seed = seed * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(seed >> 8) / 16777216.0f;
  };
  for (uint32_t r = 0; r < rows; ++r) {
    double sum = 0, square = 0;
    for (uint32_t j = 0; j < kH; ++j) {
      const bool pad = j >= kOriginH;
      x[r * kH + j] = pad ? 0.0f : uniform(-2, 2);
      dy[r * kH + j] = pad ? 0.0f : uniform(-1, 1);
      sum += x[r * kH + j];
      square += double(x[r * kH + j]) * x[r * kH + j];
    }
    mean[r] = static_cast<float>(sum / kOriginH);
    variance[r] = static_cast<float>(square / kOriginH - double(mean[r]) * mean[r]);
  }
  for (uint32_t j = 0; j < kH; ++j) gamma[j] = j < kOriginH ? uniform(0.5f, 1.5f) : 0.0f;

  layer_norm_grad_example::Problem problem;
  problem.rows = rows;
  problem.h = kH;
  problem.originH = kOriginH;
  problem.typeSize = sizeof(float);
  problem.blockDim = kBlockDim;
  problem.tileRows = 16;
  problem.epsilon = kEpsilon;
  optiling::LayerNormGradExampleTiling tiling = layer_norm_grad_example::MakeTiling(problem);
  uint8_t* tilingGm = static_cast<uint8_t*>(AscendC::GmAlloc(tiling.GetDataSize()));
  tiling.SaveToBuffer(tilingGm, tiling.GetDataSize());
  uint8_t* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(1024));

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(layer_norm_grad_float, kBlockDim, reinterpret_cast<uint8_t*>(dy), reinterpret_cast<uint8_t*>(x),
              reinterpret_cast<uint8_t*>(variance), reinterpret_cast<uint8_t*>(mean),
              reinterpret_cast<uint8_t*>(gamma), reinterpret_cast<uint8_t*>(pdX), reinterpret_cast<uint8_t*>(res),
              workspace, tilingGm);

  // An element fails when both its absolute and its relative error exceed 1e-4.
  size_t failures = 0;
  std::vector<double> goldenPdX(kH), goldenRes(kH);
  for (uint32_t r = 0; r < rows; ++r) {
    Golden(dy + r * kH, x + r * kH, variance[r], mean[r], gamma, goldenPdX.data(), goldenRes.data());
    for (uint32_t j = 0; j < kH; ++j) {
      const double got[2] = {pdX[r * kH + j], res[r * kH + j]}, want[2] = {goldenPdX[j], goldenRes[j]};
      for (int k = 0; k < 2; ++k) {
        const double err = std::fabs(got[k] - want[k]);
        if (err > 1e-4 && err > 1e-4 * std::fabs(want[k])) ++failures;
      }
    }
  }

  for (void* p : {static_cast<void*>(dy), static_cast<void*>(x), static_cast<void*>(variance),
                  static_cast<void*>(mean), static_cast<void*>(gamma), static_cast<void*>(pdX),
                  static_cast<void*>(res), static_cast<void*>(tilingGm), static_cast<void*>(workspace)}) {
    AscendC::GmFree(p);
  }
  std::printf("%s (%zu of %u values out of tolerance)\n", failures == 0 ? "test pass!" : "test failed!", failures,
              2 * rows * kH);
  return failures == 0 ? 0 : 1;
}
