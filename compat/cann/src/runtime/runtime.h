// What the front ends (aclnn, ATB) need from the runtime: the current device
// and the stream behind a user's aclrtStream handle.
#pragma once

#include "acl/acl_base.h"
#include "runtime/device.h"

namespace gradops {
namespace cann {
namespace runtime {

// The device this thread set with aclrtSetDevice (device 0 before any),
// or null, with a message for aclGetRecentErrMsg, when that device does not
// exist (GRADOPS_ACL_DEVICE=cuda without a CUDA device).
Device* CurrentDevice();

// The stream behind `handle`: the default stream for null, null (with a
// message for aclGetRecentErrMsg) for a handle that is not a live stream.
Stream* FindStream(aclrtStream handle);

}  // namespace runtime
}  // namespace cann
}  // namespace gradops
