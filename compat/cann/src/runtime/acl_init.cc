// aclInit/aclFinalize and device selection. GRADOPS_ACL_DEVICE, read by
// aclInit, chooses what the device ids stand for:
//   unset, empty or "cpu": one device, 0, the host CPU;
//   "cuda": device i is CUDA device i (none without the CUDA backend or a GPU).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "common/error_message.h"
#include "runtime/runtime.h"

namespace gradops {
namespace cann {
namespace runtime {
namespace {

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_cuda{false};  // what the device ids stand for, from aclInit
thread_local int32_t t_current_device = -1;

int32_t DeviceCount() { return g_cuda ? CudaDeviceCount() : 1; }

aclError CheckDevice(int32_t id) {
  if (id >= 0 && id < DeviceCount()) return ACL_SUCCESS;
  std::string why = "(device 0, the CPU, is the only one)";
  if (g_cuda) {
#ifdef GRADOPS_HAVE_CUDA
    why = "(GRADOPS_ACL_DEVICE=cuda: " + std::to_string(CudaDeviceCount()) + " CUDA devices on this machine)";
#else
    why = "(GRADOPS_ACL_DEVICE=cuda, but this build has no CUDA backend)";
#endif
  }
  return Fail(ACL_ERROR_INVALID_DEVICE, "deviceId: " + std::to_string(id) + " does not exist " + why);
}

}  // namespace

Device* CurrentDevice() {
  const int32_t id = t_current_device >= 0 ? t_current_device : 0;  // device 0 until one is set
  if (id >= DeviceCount()) {
    SetErrorMessage("no device: GRADOPS_ACL_DEVICE=cuda and no CUDA device " + std::to_string(id) +
                    " (see aclrtSetDevice's error)");
    return nullptr;
  }
  return g_cuda ? &CudaDevice(id) : &CpuDevice();
}

}  // namespace runtime
}  // namespace cann
}  // namespace gradops

using gradops::cann::Fail;
namespace rt = gradops::cann::runtime;

extern "C" {

aclError aclInit(const char*) {
  const char* kind = std::getenv("GRADOPS_ACL_DEVICE");
  const bool cpu = kind == nullptr || *kind == '\0' || std::strcmp(kind, "cpu") == 0;
  if (!cpu && std::strcmp(kind, "cuda") != 0) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                std::string("aclInit: GRADOPS_ACL_DEVICE is \"") + kind + "\"; expected \"cpu\" or \"cuda\"");
  }
  if (rt::g_initialized.exchange(true)) return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized");
  rt::g_cuda = !cpu;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  if (!rt::g_initialized.exchange(false)) return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: aclInit was not called");
  rt::g_cuda = false;  // the CPU again until the next aclInit says otherwise
  rt::t_current_device = -1;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
  const aclError err = rt::CheckDevice(deviceId);
  if (err == ACL_SUCCESS) rt::t_current_device = deviceId;
  return err;
}

aclError aclrtResetDevice(int32_t deviceId) {
  const aclError err = rt::CheckDevice(deviceId);
  if (err == ACL_SUCCESS && rt::t_current_device == deviceId) rt::t_current_device = -1;
  return err;
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
  if (rt::t_current_device < 0) return Fail(ACL_ERROR_INVALID_DEVICE, "aclrtGetDevice: no device set on this thread");
  *deviceId = rt::t_current_device;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  *count = static_cast<uint32_t>(rt::DeviceCount());
  return ACL_SUCCESS;
}

}  // extern "C"
