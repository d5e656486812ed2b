// Host program for the seed's LayerNormGrad kernel sample
// (layernorm_grad_custom, float, [2, 32, 16]), in the CPU-debug style; the
// results are checked against the float64 reference. Prints "test pass!"
// and exits 0 when every value is within 1e-4 (absolute or relative).
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "kernel_operator.h"
#include "ref/reference.h"
#include "tikicpulib.h"
#include "tiling/tiling_api.h"

extern "C" __global__ __aicore__ void layernorm_grad_custom(GM_ADDR inputXGm, GM_ADDR inputDyGm,
                                                            GM_ADDR inputVarianceGm, GM_ADDR inputMeanGm,
                                                            GM_ADDR inputGammaGm, GM_ADDR outputPdXGm,
                                                            GM_ADDR resForGammaGm, GM_ADDR workspace, GM_ADDR tiling);

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
  TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradTiling, layernormGradTilingData);
  TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayernormGradCustom, TilingData)
}  // namespace optiling

int main() {
  constexpr uint32_t B = 2, S = 32, H = 16, N = B * S * H;
  constexpr float kEpsilon = 1e-4f;
  auto alloc = [](uint32_t n) { return static_cast<float*>(AscendC::GmAlloc(n * sizeof(float))); };
  float *x = alloc(N), *dy = alloc(N), *variance = alloc(B * S), *mean = alloc(B * S), *gamma = alloc(H);
  float *pdX = alloc(N), *res = alloc(N);
  uint32_t state = 42;
  auto uniform = [&state](float lo, float hi) {
    state = state * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(state >> 8) / 16777216.0f;
  };
  for (uint32_t i = 0; i < N; ++i) {
    x[i] = uniform(-100, 100);
    dy[i] = uniform(-100, 100);
  }
  for (uint32_t r = 0; r < B * S; ++r) {
    double sum = 0, square = 0;
    for (uint32_t j = 0; j < H; ++j) sum += x[r * H + j];
    mean[r] = static_cast<float>(sum / H);
    for (uint32_t j = 0; j < H; ++j) square += (x[r * H + j] - sum / H) * (x[r * H + j] - sum / H);
    variance[r] = static_cast<float>(square / H);
  }
  for (uint32_t j = 0; j < H; ++j) gamma[j] = uniform(-100, 100);

  optiling::TilingData tiling;
  const ge::Shape shape({B, S, H, H});
  uint32_t maxTmp = 0, minTmp = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, sizeof(float), false, maxTmp, minTmp);
  AscendC::GetLayerNormGradNDTilingInfo(shape, minTmp, sizeof(float), false, tiling.layernormGradTilingData);
  tiling.set_epsilon(kEpsilon);
  uint8_t* tilingGm = static_cast<uint8_t*>(AscendC::GmAlloc(tiling.GetDataSize()));
  tiling.SaveToBuffer(tilingGm, tiling.GetDataSize());
  uint8_t* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(16 * 1024 * 1024));

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  auto gm = [](float* p) { return reinterpret_cast<uint8_t*>(p); };
  ICPU_RUN_KF(layernorm_grad_custom, 1, gm(x), gm(dy), gm(variance), gm(mean), gm(gamma), gm(pdX), gm(res),
              workspace, tilingGm);

  gradops::LayerNormGradArgs args;
  args.dy = gradops::Contiguous(dy, gradops::DType::kFloat32, {B * S, H});
  args.x = gradops::Contiguous(x, gradops::DType::kFloat32, {B * S, H});
  args.variance = gradops::Contiguous(variance, gradops::DType::kFloat32, {B * S});
  args.mean = gradops::Contiguous(mean, gradops::DType::kFloat32, {B * S});
  args.gamma = gradops::Contiguous(gamma, gradops::DType::kFloat32, {H});
  args.epsilon = kEpsilon;
  const gradops::ref::NormGrads want = gradops::ref::LayerNormGrad(args);
  size_t failures = 0;
  for (uint32_t i = 0; i < N; ++i) {
    const double got[2] = {pdX[i], res[i]}, ref[2] = {want.dx[i], want.res_for_gamma[i]};
    for (int k = 0; k < 2; ++k) {
      const double err = std::fabs(got[k] - ref[k]);
      if (err > 1e-4 && err > 1e-4 * std::fabs(ref[k])) ++failures;
    }
  }
  std::printf("%s (%zu of %u values out of tolerance)\n", failures == 0 ? "test pass!" : "test failed!", failures,
              2 * N);
  for (float* p : {x, dy, variance, mean, gamma, pdX, res}) AscendC::GmFree(p);
  AscendC::GmFree(tilingGm);
  AscendC::GmFree(workspace);
  return failures == 0 ? 0 : 1;
}
