// A CPU emulation of the CUDA runtime and of the device features the
// backend's kernels use, for testing them where there is no GPU.
//
// The kernels (src/cuda/*.cu) compile unchanged as C++ against the headers
// in include/; a launch runs every CTA's threads as fibers on the calling
// thread, one cluster at a time, in a fixed order. A fiber runs until it
// reaches a barrier (__syncthreads, a warp shuffle, cluster.sync()), so
// everything between two barriers of one thread runs without interleaving.
// Launches cycle through four orders: threads one step at a time, first to
// last or last to first, or each warp as far as it can go before the next
// (a missing barrier between warps then shows), first or last warp first.
// What it checks beyond the results:
//  - barriers: a barrier that some of its threads never reach (divergent
//    __syncthreads, a shuffle with exited lanes) fails the launch;
//  - shared memory: NaN bytes at the start of every CTA and again once all
//    its threads have finished (a cluster peer reading it then sees NaN);
//    guard bytes after dynamic shared memory, checked at the CTA's end;
//  - device memory: cudaMalloc places each allocation between guard pages,
//    with guard bytes in the alignment gaps, checked after every launch;
//    freed memory stays inaccessible for a while; faults are explained;
//  - launch limits: block size, dynamic shared memory, cluster size and grid
//    divisibility as on the emulated device;
//  - streams: launches, copies and fills only on null, cudaStreamLegacy or a
//    stream that cudaStreamCreate made and cudaStreamDestroy has not ended.
// Not emulated: concurrency (streams are synchronous, launches run in
// order), timing, registers, occupancy and __launch_bounds__, the static
// shared memory limit, the memory model, bit-exact device math (expf).
//
// Device properties come from the environment: GRADOPS_EMULATED_CC
// (compute capability as major * 10 + minor, default 90) and
// GRADOPS_EMULATED_SMS (multiprocessors, default 4); GRADOPS_EMULATED_TRACE=1
// prints every launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

struct cudaLaunchConfig_st;

namespace cuda_emulator {

// The running thread's CTA in its cluster.
int ClusterRank();
int ClusterSize();
void SyncThreads();
void SyncCluster();
// Exchanges `bytes` (at most 8) with lane (this lane ^ lane_mask) of the warp.
void ShuffleXor(void* value, size_t bytes, unsigned member_mask, int lane_mask, int width);
void* DynamicShared();
// The address of *p (shared memory of this CTA) in the CTA of cluster rank `rank`.
void* MapSharedRank(const void* p, unsigned rank);

// Runs `body` as every thread of the launch; returns a cudaError_t value.
// `launcher` (the signature of cudaLaunchKernelEx) names the kernel's
// parameter types in messages.
int Launch(const cudaLaunchConfig_st& config, const std::function<void()>& body, const char* launcher);

}  // namespace cuda_emulator
