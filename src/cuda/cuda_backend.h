// The host interface of the CUDA backend, free of CUDA headers so that
// src/ops, tools and tests include it as plain C++. Only compiled in when
// the library is built with GRADOPS_HAVE_CUDA.
//
// Streams: `stream` is a cudaStream_t passed as void*; null is the legacy
// default stream. Kernels run asynchronously on it; an error code
// (cudaError_t as int, 0 for success) is returned by the Run* functions.
#pragma once

#include <cstddef>
#include <string>

#include "cpu/norm.h"
#include "cpu/silu.h"
#include "cuda/device_info.h"
#include "cuda/norm_schedule.h"
#include "cuda/silu_schedule.h"

namespace gradops {
namespace cuda {

// Number of CUDA devices; 0 without a driver or a device. Queried once and
// cached, so it costs nothing after the first call and never fails.
int DeviceCount();

// True when `p` points into device (or managed) memory. Always false, at no
// cost, when DeviceCount() == 0. Where a device exists the first query may
// create the CUDA context of the current device.
bool IsDevicePointer(const void* p);

// The device that owns `p` (a device pointer), or -1.
int DeviceOf(const void* p);

// The properties the schedules need, of device `device`.
DeviceInfo QueryDevice(int device);

int RunNorm(const cpu::NormProblem& problem, const NormSchedule& schedule, void* workspace, void* stream);
int RunSilu(const cpu::SiluProblem& problem, const SiluSchedule& schedule, void* stream);

// The error of the last device Run on this thread (0 if none), then reset.
int TakeLastRunError();
void SetLastRunError(int error);

// Small helpers for tools and tests that do not include CUDA headers.
void* DeviceAlloc(size_t bytes);  // null on failure
void DeviceFree(void* p);
bool CopyToDevice(void* dst, const void* src, size_t bytes);
bool CopyToHost(void* dst, const void* src, size_t bytes);
bool CopyOnDevice(void* dst, const void* src, size_t bytes);  // asynchronous, default stream
bool FillOnDevice(void* dst, int byte, size_t bytes);
bool Synchronize(std::string* error);                         // waits for the device; the first error
void* CreateStream();                                         // a cudaStream_t (blocking), null on failure
void DestroyStream(void* stream);

// Milliseconds of `reps` back-to-back calls of `fn(context)` on the default
// stream, timed with CUDA events after one warm-up call; median of `rounds`.
double TimeMs(void (*fn)(void*), void* context, int reps, int rounds);

}  // namespace cuda
}  // namespace gradops
