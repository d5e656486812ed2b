// aclInit/aclFinalize and device selection. There is one device, 0, the CPU.
#include <atomic>
#include <string>

#include "acl/acl.h"
#include "common/error_message.h"
#include "runtime/runtime.h"

namespace gradops {
namespace cann {
namespace runtime {
namespace {

constexpr int32_t kDeviceCount = 1;
std::atomic<bool> g_initialized{false};
thread_local int32_t t_current_device = -1;

aclError CheckDevice(int32_t id) {
  if (id >= 0 && id < kDeviceCount) return ACL_SUCCESS;
  return Fail(ACL_ERROR_INVALID_DEVICE, "deviceId: " + std::to_string(id) + " does not exist (device 0, the CPU, is the only one)");
}

}  // namespace

Device& CurrentDevice() { return CpuDevice(); }

}  // namespace runtime
}  // namespace cann
}  // namespace gradops

using gradops::cann::Fail;
namespace rt = gradops::cann::runtime;

extern "C" {

aclError aclInit(const char*) {
  if (rt::g_initialized.exchange(true)) return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized");
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  if (!rt::g_initialized.exchange(false)) return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: aclInit was not called");
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
  *count = static_cast<uint32_t>(rt::kDeviceCount);
  return ACL_SUCCESS;
}

}  // extern "C"
