// The emulator catches what it claims to (emulator.h): small kernels with a
// known result or a deliberate fault.
#include <gtest/gtest.h>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/launch.cuh"
#include "cuda/shared_memory.cuh"

namespace {

namespace cg = cooperative_groups;
using gradops::cuda::DynamicShared;
using gradops::cuda::LaunchKernel;

struct Buffers {
  float* out = nullptr;
  int64_t n = 0;
};

// Every thread: the sum of its warp's lane numbers by a butterfly.
__global__ void WarpSum(const Buffers b) {
  float v = static_cast<float>(threadIdx.x % 32);
  for (int mask = 1; mask < 32; mask *= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, mask);
  b.out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Thread 0 of each CTA writes, the others read after the barrier.
__global__ void Broadcast(const Buffers b) {
  __shared__ float value;
  if (threadIdx.x == 0) value = 100.0f + blockIdx.x;
  __syncthreads();
  b.out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

// Only the first half of the CTA reaches the barrier.
__global__ void DivergentBarrier(const Buffers b) {
  if (threadIdx.x < blockDim.x / 2) __syncthreads();
  b.out[threadIdx.x] = 1.0f;
}

// Writes one element past the end of the buffer.
__global__ void WritePastTheEnd(const Buffers b) {
  if (threadIdx.x == 0) b.out[b.n] = 1.0f;
}

// Reads one page past the end of the buffer (into its guard page).
__global__ void ReadPastTheEnd(const Buffers b) {
  if (threadIdx.x == 0) b.out[0] = b.out[b.n + 1024];
}

// Reads shared memory no thread wrote.
__global__ void ReadUnwrittenShared(const Buffers b) {
  __shared__ float never_written[64];
  b.out[threadIdx.x] = never_written[threadIdx.x];
  float* dynamic = DynamicShared<float>();
  b.out[64 + threadIdx.x] = dynamic[threadIdx.x];
}

// Each CTA of a cluster publishes its rank; every CTA then reads all ranks'.
__global__ void ClusterRanks(const Buffers b) {
  __shared__ float rank_value;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) rank_value = 10.0f * cluster.block_rank();
  cluster.sync();
  float sum = 0.0f;
  for (unsigned r = 0; r < cluster.num_blocks(); ++r) sum += *cluster.map_shared_rank(&rank_value, r);
  b.out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  cluster.sync();
}

// Per row: warp leaders publish a value, a barrier, everyone sums them.
// Without the second barrier a warp that runs ahead overwrites the next
// row's values before slower warps have read this row's.
template <bool kSecondBarrier>
__global__ void RowsOfWarpSums(const Buffers b) {
  __shared__ float published[32];
  float total = 0.0f;
  for (int row = 0; row < 4; ++row) {
    if (threadIdx.x % 32 == 0) published[threadIdx.x / 32] = static_cast<float>(row * 100 + threadIdx.x / 32);
    __syncthreads();
    for (unsigned w = 0; w < blockDim.x / 32; ++w) total += published[w];
    if (kSecondBarrier) __syncthreads();
  }
  b.out[threadIdx.x] = total;
}

// Rank 0 leaves without the final cluster.sync(); rank 1 then reads its
// shared memory.
__global__ void ReadAfterPeerExit(const Buffers b) {
  __shared__ float value;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) value = 7.0f;
  cluster.sync();
  if (cluster.block_rank() == 0) return;
  __syncthreads();
  b.out[threadIdx.x] = *cluster.map_shared_rank(&value, 0);
}

// Writes one float past its dynamic shared memory.
__global__ void WritePastDynamicShared(const Buffers b) {
  float* dynamic = DynamicShared<float>();
  if (threadIdx.x == 0) dynamic[b.n] = 1.0f;
}

class Emulator : public ::testing::Test {
 protected:
  void SetUp() override {
    cudaGetLastError();
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b_.out), kCount * sizeof(float)), cudaSuccess);
    b_.n = kCount;
  }
  void TearDown() override { cudaFree(b_.out); }
  std::vector<float> Out() {
    std::vector<float> host(kCount);
    EXPECT_EQ(cudaMemcpy(host.data(), b_.out, kCount * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  static constexpr int64_t kCount = 1000;
  Buffers b_;
};

TEST_F(Emulator, WarpShufflesExchangeLanes) {
  ASSERT_EQ(LaunchKernel(WarpSum, dim3(3), 96, 0, nullptr, b_), cudaSuccess);
  const std::vector<float> out = Out();
  for (int i = 0; i < 3 * 96; ++i) ASSERT_EQ(out[i], 496.0f) << i;
}

TEST_F(Emulator, SharedMemoryIsPerCtaAndBarriersOrderIt) {
  ASSERT_EQ(LaunchKernel(Broadcast, dim3(4), 128, 0, nullptr, b_), cudaSuccess);
  const std::vector<float> out = Out();
  for (int i = 0; i < 4 * 128; ++i) ASSERT_EQ(out[i], 100.0f + i / 128) << i;
}

TEST_F(Emulator, ClusterCtasReadEachOthersSharedMemory) {
  ASSERT_EQ(LaunchKernel(ClusterRanks, dim3(8), 64, 0, nullptr, b_, 4), cudaSuccess);
  const std::vector<float> out = Out();
  for (int i = 0; i < 8 * 64; ++i) ASSERT_EQ(out[i], 60.0f) << i;  // 0 + 10 + 20 + 30
}

TEST_F(Emulator, UnwrittenSharedMemoryReadsAsNaN) {
  ASSERT_EQ(LaunchKernel(ReadUnwrittenShared, dim3(1), 64, 64 * sizeof(float), nullptr, b_), cudaSuccess);
  const std::vector<float> out = Out();
  for (int i = 0; i < 128; ++i) ASSERT_TRUE(std::isnan(out[i])) << i;
}

TEST_F(Emulator, DivergentBarrierFailsTheLaunch) {
  EXPECT_EQ(LaunchKernel(DivergentBarrier, dim3(1), 64, 0, nullptr, b_), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(Emulator, WritePastAnAllocationFailsTheLaunch) {
  EXPECT_EQ(LaunchKernel(WritePastTheEnd, dim3(1), 32, 0, nullptr, b_), cudaErrorIllegalAddress);
}

TEST_F(Emulator, ReadPastAnAllocationFaultsAndSaysWhere) {
  EXPECT_DEATH(LaunchKernel(ReadPastTheEnd, dim3(1), 32, 0, nullptr, b_), "access 4097 bytes past the device allocation of 4000 bytes");
}

TEST_F(Emulator, MissingBarrierBetweenWarpsShows) {
  const float want = 4 * (0 + 1 + 2 + 3) + 100.0f * 4 * (0 + 1 + 2 + 3);  // 4 warps, rows 0..3
  int wrong = 0;
  for (int launch = 0; launch < 4; ++launch) {  // every scheduling order
    ASSERT_EQ(LaunchKernel(RowsOfWarpSums<true>, dim3(1), 128, 0, nullptr, b_), cudaSuccess);
    for (int i = 0; i < 128; ++i) ASSERT_EQ(Out()[i], want) << "with the barrier, launch " << launch;
    ASSERT_EQ(LaunchKernel(RowsOfWarpSums<false>, dim3(1), 128, 0, nullptr, b_), cudaSuccess);
    const std::vector<float> out = Out();
    wrong += std::count_if(out.begin(), out.begin() + 128, [&](float v) { return v != want; }) > 0;
  }
  EXPECT_GT(wrong, 0) << "no scheduling order exposed the missing barrier";
}

TEST_F(Emulator, SharedMemoryOfAFinishedCtaReadsAsNaN) {
  int nan_launches = 0;
  for (int launch = 0; launch < 4; ++launch) {
    ASSERT_EQ(LaunchKernel(ReadAfterPeerExit, dim3(2), 32, 0, nullptr, b_, 2), cudaSuccess);
    const std::vector<float> out = Out();
    nan_launches += std::isnan(out[0]);
  }
  EXPECT_GT(nan_launches, 0);
}

TEST_F(Emulator, WritePastDynamicSharedMemoryFailsTheLaunch) {
  Buffers b = b_;
  b.n = 16;
  EXPECT_EQ(LaunchKernel(WritePastDynamicShared, dim3(1), 32, 16 * sizeof(float), nullptr, b), cudaErrorLaunchFailure);
}

TEST_F(Emulator, UseAfterFreeFaultsAndSaysSo) {
  Buffers b;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b.out), 256), cudaSuccess);
  b.n = 64;
  ASSERT_EQ(cudaFree(b.out), cudaSuccess);
  EXPECT_DEATH(LaunchKernel(WarpSum, dim3(1), 32, 0, nullptr, b), "access to freed memory");
}

TEST_F(Emulator, LaunchLimitsAreChecked) {
  EXPECT_EQ(LaunchKernel(WarpSum, dim3(1), 2048, 0, nullptr, b_), cudaErrorInvalidConfiguration);
  EXPECT_EQ(LaunchKernel(WarpSum, dim3(0), 32, 0, nullptr, b_), cudaErrorInvalidConfiguration);
  EXPECT_EQ(LaunchKernel(WarpSum, dim3(1), 32, 64 << 10, nullptr, b_), cudaErrorInvalidValue);
  EXPECT_EQ(LaunchKernel(ClusterRanks, dim3(6), 32, 0, nullptr, b_, 4), cudaErrorInvalidValue);  // 6 % 4
  EXPECT_EQ(LaunchKernel(ClusterRanks, dim3(16), 32, 0, nullptr, b_, 16), cudaErrorInvalidValue);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(32);
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 0;
  attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  EXPECT_EQ(cudaLaunchKernelEx(&config, ClusterRanks, b_), cudaErrorInvalidValue);  // cluster of 0
}

TEST_F(Emulator, WorkOnlyOnLiveStreams) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  EXPECT_EQ(LaunchKernel(WarpSum, dim3(1), 32, 0, stream, b_), cudaSuccess);
  EXPECT_EQ(LaunchKernel(WarpSum, dim3(1), 32, 0, cudaStreamLegacy, b_), cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(b_.out, 0, 16, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(LaunchKernel(WarpSum, dim3(1), 32, 0, stream, b_), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaMemsetAsync(b_.out, 0, 16, stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
}

TEST_F(Emulator, CopiesCheckTheirDirection) {
  std::vector<float> host(4, 1.0f);
  EXPECT_EQ(cudaMemcpy(b_.out, host.data(), 16, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b_.out, host.data(), 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(host.data(), b_.out, kCount * sizeof(float) + 4, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);  // past the allocation
  cudaPointerAttributes attributes;
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, b_.out + 10), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, host.data()), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeUnregistered);
}

}  // namespace
