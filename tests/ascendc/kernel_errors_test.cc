// Every kernel rule the emulation enforces ends the program with status 1
// and a message naming the kernel, the block and the rule. Each kernel
// breaks its rule in block 1 of 2 only.
#include <gtest/gtest.h>

#include "test_util.h"
#include "tiling/tiling_api.h"

namespace {

using AscendC::TPosition;
using ascendc_test::GmArray;

constexpr uint32_t kFloats = 64;

// The message for `rule` broken by `kernel` in block 1 of 2.
std::string Message(const char* kernel, const char* rule) {
  return std::string("AscendC error: kernel '") + kernel + "', block 1 of 2: " + rule;
}

class AscendCKernelErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
  }
  GmArray<float> in_{2 * kFloats}, out_{2 * kFloats};
};

bool Breaks() { return AscendC::GetBlockIdx() == 1; }

// A well-behaved copy through a queue: GM -> UB -> GM, 64 floats per block.
template <bool kBreakAlignment, bool kBreakRange>
void copy_kernel(GM_ADDR in, GM_ADDR out) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> queue;
  pipe.InitBuffer(queue, 1, kFloats * sizeof(float));
  AscendC::GlobalTensor<float> src, dst;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(in) + AscendC::GetBlockIdx() * kFloats, kFloats);
  dst.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out) + AscendC::GetBlockIdx() * kFloats, kFloats);
  uint32_t count = kFloats;
  if (kBreakAlignment && Breaks()) count = 7;
  AscendC::LocalTensor<float> t = queue.AllocTensor<float>();
  AscendC::DataCopy(t, src, count);
  queue.EnQue(t);
  t = queue.DeQue<float>();
  // Block 1 writes 64 floats from its last 8: past the end of the region.
  AscendC::DataCopy(kBreakRange && Breaks() ? dst[kFloats - 8] : dst, t, count);
  queue.FreeTensor(t);
}

TEST_F(AscendCKernelErrors, WellBehavedKernelRuns) {
  for (uint32_t i = 0; i < 2 * kFloats; ++i) in_[i] = static_cast<float>(i);
  ICPU_RUN_KF((copy_kernel<false, false>), 2, in_.gm(), out_.gm());
  for (uint32_t i = 0; i < 2 * kFloats; ++i) ASSERT_EQ(out_[i], static_cast<float>(i));
}

void unaligned_copy(GM_ADDR in, GM_ADDR out) { copy_kernel<true, false>(in, out); }
TEST_F(AscendCKernelErrors, DataCopyLengthNotMultipleOf32Bytes) {
  EXPECT_EXIT(ICPU_RUN_KF(unaligned_copy, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("unaligned_copy", "DataCopy length: 28 bytes is not a multiple of 32 bytes"));
}

void copy_past_gm(GM_ADDR in, GM_ADDR out) { copy_kernel<false, true>(in, out); }
TEST_F(AscendCKernelErrors, DataCopyOutsideGmAllocRegion) {
  EXPECT_EXIT(ICPU_RUN_KF(copy_past_gm, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("copy_past_gm", "DataCopy GM range: GM bytes .* are not inside one GmAlloc region"));
}

void ub_overflow(GM_ADDR, GM_ADDR) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 2> in;
  AscendC::TBuf<TPosition::VECCALC> calc;
  pipe.InitBuffer(in, 2, 64 * 1024);
  pipe.InitBuffer(calc, Breaks() ? 64 * 1024 + 1 : 64 * 1024);
}
TEST_F(AscendCKernelErrors, BuffersBeyondTheUnifiedBuffer) {
  EXPECT_EXIT(ICPU_RUN_KF(ub_overflow, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("ub_overflow", "UB capacity: InitBuffer of TBuf<VECCALC>: 1 x 65537 bytes .* exceeds the "
                                     "196608-byte Unified Buffer"));
}

void dequeue_before_enqueue(GM_ADDR, GM_ADDR) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> queue;
  pipe.InitBuffer(queue, 1, 256);
  AscendC::LocalTensor<float> t = queue.AllocTensor<float>();
  if (!Breaks()) queue.EnQue(t);
  t = queue.DeQue<float>();
  queue.FreeTensor(t);
}
TEST_F(AscendCKernelErrors, DeQueBeforeEnQue) {
  EXPECT_EXIT(ICPU_RUN_KF(dequeue_before_enqueue, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("dequeue_before_enqueue", "queue order: DeQue on TQue<VECIN, 1> with nothing EnQue'd"));
}

void use_after_free(GM_ADDR in, GM_ADDR) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> queue;
  pipe.InitBuffer(queue, 1, 256);
  AscendC::GlobalTensor<float> src;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(in), kFloats);
  AscendC::LocalTensor<float> t = queue.AllocTensor<float>();
  queue.FreeTensor(t);
  if (Breaks()) AscendC::DataCopy(t, src, 8);
}
TEST_F(AscendCKernelErrors, TensorUsedAfterFreeTensor) {
  EXPECT_EXIT(ICPU_RUN_KF(use_after_free, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("use_after_free", "queue order: DataCopy on a LocalTensor after FreeTensor"));
}

void alloc_twice(GM_ADDR, GM_ADDR) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECOUT, 1> queue;
  pipe.InitBuffer(queue, 1, 256);
  AscendC::LocalTensor<float> a = queue.AllocTensor<float>();
  if (Breaks()) queue.AllocTensor<float>();
  queue.FreeTensor(a);
}
TEST_F(AscendCKernelErrors, AllocTensorWithNoFreeBuffer) {
  EXPECT_EXIT(ICPU_RUN_KF(alloc_twice, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("alloc_twice", "queue order: AllocTensor on TQue<VECOUT, 1>: all 1 buffers are in use"));
}

// LayerNormGradBeta over 8 rows of kH ones; block 1 gets kBadTmp bytes of
// sharedTmpBuffer, or a tiling for rows of kBadH, when those are not 0.
template <uint32_t kH, uint32_t kBadTmp, uint32_t kBadH>
void beta_kernel(GM_ADDR, GM_ADDR) {
  constexpr uint32_t kRows = 8;
  const uint32_t h = Breaks() && kBadH ? kBadH : kH;
  AscendC::tiling::LayerNormGradBetaTiling tiling;
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(ge::Shape({1, kRows, h, h}), 4, false, max, min);
  AscendC::GetLayerNormGradBetaNDTilingInfo(ge::Shape({1, kRows, h, h}), min, 4, false, tiling);
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> data, out, tmp;
  pipe.InitBuffer(data, 2 * kRows * kH * sizeof(float));
  pipe.InitBuffer(out, 2 * kH * sizeof(float));
  pipe.InitBuffer(tmp, Breaks() && kBadTmp ? kBadTmp : min);
  AscendC::LocalTensor<float> all = data.Get<float>();
  AscendC::LocalTensor<float> outs = out.Get<float>();
  for (uint32_t i = 0; i < 2 * kRows * kH; ++i) all.SetValue(i, 1.0f);
  AscendC::LocalTensor<uint8_t> shared = tmp.Get<uint8_t>();
  AscendC::LayerNormGradBeta<float>(outs, outs[kH], all, all[kRows * kH], shared, tiling);
}

void small_tmp(GM_ADDR in, GM_ADDR out) { beta_kernel<16, 32, 0>(in, out); }
TEST_F(AscendCKernelErrors, TmpBufferBelowTheMinimum) {
  EXPECT_EXIT(ICPU_RUN_KF(small_tmp, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("small_tmp", "temporary space: LayerNormGradBeta needs 128 bytes .*sharedTmpBuffer holds 32"));
}

void unaligned_h(GM_ADDR in, GM_ADDR out) { beta_kernel<16, 0, 12>(in, out); }
TEST_F(AscendCKernelErrors, RowLengthNot32ByteAligned) {
  EXPECT_EXIT(ICPU_RUN_KF(unaligned_h, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("unaligned_h", "H alignment: LayerNormGradBeta: hLength 12 x 4 bytes is not a multiple of 32"));
}

void framework_tmp_exhausted(GM_ADDR, GM_ADDR) {
  constexpr uint32_t kH = 64;
  AscendC::tiling::LayerNormGradTiling tiling;
  uint32_t max = 0, min = 0;
  const ge::Shape shape({1, 64, kH, kH});
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, 4, false, max, min);
  AscendC::GetLayerNormGradNDTilingInfo(shape, min, 4, false, tiling);
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> rows, stats, filler;
  pipe.InitBuffer(rows, 4 * 64 * kH * sizeof(float));  // 64 KiB: dy, x, pdX, resForGamma
  pipe.InitBuffer(stats, 3 * kH * sizeof(float));
  if (Breaks()) pipe.InitBuffer(filler, 100 * 1024);   // leaves less than `min` free
  AscendC::LocalTensor<float> r = rows.Get<float>(), s = stats.Get<float>();
  const uint32_t n = 64 * kH;
  AscendC::LayerNormGrad<float>(r, r[n], r[2 * n], r[3 * n], s, s[kH], s[2 * kH], 1e-5f, tiling);
}
TEST_F(AscendCKernelErrors, FrameworkTmpSpaceNotReserved) {
  EXPECT_EXIT(ICPU_RUN_KF(framework_tmp_exhausted, 2, in_.gm(), out_.gm()), ::testing::ExitedWithCode(1),
              Message("framework_tmp_exhausted",
                      "temporary space: LayerNormGrad needs 98304 bytes .*the UB left after the TPipe's buffers is"));
}

void launch_with_host_pointer(GM_ADDR, GM_ADDR) {}
TEST_F(AscendCKernelErrors, LaunchArgumentNotFromGmAlloc) {
  std::vector<uint8_t> host(64);
  EXPECT_EXIT(ICPU_RUN_KF(launch_with_host_pointer, 2, in_.gm(), host.data()), ::testing::ExitedWithCode(1),
              "ICPU_RUN_KF: kernel 'launch_with_host_pointer': argument 2 .* is not memory from AscendC::GmAlloc");
}

TEST_F(AscendCKernelErrors, GmFreeOfForeignPointer) {
  int local = 0;
  EXPECT_EXIT(AscendC::GmFree(&local), ::testing::ExitedWithCode(1), "host code: GmFree: .* was not returned by GmAlloc");
}

}  // namespace
