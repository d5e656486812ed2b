// Kernel launches on the CPU: ICPU_RUN_KF(kernel, blockDim, args...) runs
// the kernel once per block, each block on its own thread with its own
// GetBlockIdx() and UB, and returns when all blocks are done. Every pointer
// argument must point into memory from AscendC::GmAlloc.
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>

#include "gradops_ascendc/runtime.h"

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace AscendC {

using ::KernelMode;

// Memory of the emulated device's global memory, 32-byte aligned.
void* GmAlloc(size_t size);
void GmFree(void* ptr);

// The core type the following launches run on. AIV_MODE (vector) and
// AIC_MODE (cube) are provided; MIX_MODE is refused at launch.
void SetKernelMode(KernelMode mode);

}  // namespace AscendC

namespace gradops {
namespace ascendc {

// Runs body() on `block_dim` threads, one per block.
void RunBlocks(const char* kernel, int64_t block_dim, const std::function<void()>& body);

// Fails unless `arg` (argument `index` of `kernel`) is not a pointer, or is
// null or points into GmAlloc memory.
void CheckLaunchPointer(const char* kernel, int index, const void* arg);

template <typename A>
void CheckLaunchArg(const char* kernel, int index, const A& arg) {
  if constexpr (std::is_pointer<A>::value) CheckLaunchPointer(kernel, index, static_cast<const void*>(arg));
}

template <typename... Args>
void CheckLaunchArgs(const char* kernel, const Args&... args) {
  int index = 0;
  (CheckLaunchArg(kernel, ++index, args), ...);
}

}  // namespace ascendc
}  // namespace gradops

#define ICPU_RUN_KF(func, blockDim, ...)                                        \
  do {                                                                          \
    ::gradops::ascendc::CheckLaunchArgs(#func, __VA_ARGS__);                    \
    ::gradops::ascendc::RunBlocks(#func, (blockDim), [&]() { func(__VA_ARGS__); }); \
  } while (0)

// The tiling key of the following launches, which kernels test with
// TILING_KEY_IS (0 until set).
#define ICPU_SET_TILING_KEY(tilingKey) ::gradops::ascendc::SetTilingKey(tilingKey)
