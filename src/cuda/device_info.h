// What the host-side schedules need to know about a CUDA device. Filled from
// cudaGetDeviceProperties at plan time (device.cc), or by hand in tests.
#pragma once

namespace gradops {
namespace cuda {

struct DeviceInfo {
  int sm_count = 1;
  int cc_major = 0, cc_minor = 0;      // compute capability
  int max_threads_per_sm = 2048;
  bool clusters() const { return cc_major >= 9; }  // thread block clusters (Hopper and later)
};

}  // namespace cuda
}  // namespace gradops
