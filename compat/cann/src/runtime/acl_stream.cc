// aclrt stream functions. A handle is the address of a runtime Stream, kept
// in a live set so that a destroyed or foreign handle is refused.
#include "acl/acl.h"
#include "common/error_message.h"
#include "common/live_set.h"
#include "runtime/runtime.h"

namespace gradops {
namespace cann {
namespace runtime {

Stream* FindStream(aclrtStream handle) {
  if (handle == nullptr) {
    Device* device = CurrentDevice();
    return device == nullptr ? nullptr : &device->DefaultStream();
  }
  Stream* stream = static_cast<Stream*>(handle);
  if (!Live<Stream>().Contains(stream)) {
    SetErrorMessage("stream: not a live stream (destroyed, or not made by aclrtCreateStream)");
    return nullptr;
  }
  return stream;
}

}  // namespace runtime
}  // namespace cann
}  // namespace gradops

using gradops::cann::Fail;
using gradops::cann::Live;
namespace rt = gradops::cann::runtime;

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  rt::Device* device = rt::CurrentDevice();
  if (device == nullptr) return ACL_ERROR_INVALID_DEVICE;
  rt::Stream* created = device->CreateStream().release();
  Live<rt::Stream>().Add(created);
  *stream = created;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  rt::Stream* s = static_cast<rt::Stream*>(stream);
  if (stream == nullptr || !Live<rt::Stream>().Remove(s)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: not a live stream (destroyed twice, or foreign)");
  }
  s->Synchronize();
  delete s;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  rt::Stream* s = rt::FindStream(stream);
  if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
  const gradops::Status status = s->Synchronize();
  if (!status.ok()) return Fail(ACL_ERROR_RT_FAILURE, "stream: queued work failed: " + status.message());
  return ACL_SUCCESS;
}

}  // extern "C"
