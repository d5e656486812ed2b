// What the parts of the CUDA emulation share (memory.cc, launch.cc,
// runtime.cc); emulator.h is the interface the emulated headers use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "include/cuda_runtime.h"

namespace cuda_emulator {

constexpr size_t kPage = 4096;
constexpr unsigned char kGuardByte = 0xA5;   // gaps around allocations and after dynamic shared memory
constexpr unsigned char kPoisonByte = 0xFF;  // fresh device and shared memory: NaN
constexpr size_t kStackBytes = 256 << 10;    // per emulated thread

// Every entry point holds it: launches, allocations, copies run one at a time.
std::recursive_mutex& Mutex();

// Records `error` as the last one and prints `message`; returns `error`.
cudaError_t Fail(cudaError_t error, const std::string& message);

int EnvInt(const char* name, int fallback);
int ComputeCapability();  // GRADOPS_EMULATED_CC, default 90
int Multiprocessors();    // GRADOPS_EMULATED_SMS, default 4

// Null, cudaStreamLegacy, or made by cudaStreamCreate and not yet destroyed.
bool ValidStream(cudaStream_t stream);

// ---- memory.cc -------------------------------------------------------------
// Device and pinned host allocations between guard pages; freed ones stay
// inaccessible for a while; faults in either are explained.
cudaError_t Allocate(void** p, size_t bytes, bool device);
cudaError_t Release(void* p, bool device);
// Whether [p, p + bytes) lies in one allocation (of any kind; of device memory).
bool Allocated(const void* p, size_t bytes);
bool OnDevice(const void* p, size_t bytes);
// The allocation holding p: whether it is device memory; false when none.
bool Lookup(const void* p, bool* device);
// The first guard byte around an allocation that a write changed, described;
// empty when none.
std::string CorruptedGuards();
// The first byte of [begin, end) that is not `byte`, or null.
const char* FirstNot(const char* begin, const char* end, unsigned char byte);
// Stacks for emulated threads, kStackBytes each with a guard page at the
// bottom, reused across launches; false when there is no memory for `count`.
bool ReserveStacks(size_t count);
char* Stack(size_t index);

// ---- launch.cc -------------------------------------------------------------
// Whether a kernel is running (the fault handler names address 0 then).
bool KernelRunning();

}  // namespace cuda_emulator
