// gradops CANN compatibility: atb::Context (atb/context.h).
//
// A context holds the stream operations execute on. On the CPU device the
// other settings (execute type, launch mode, tiling copy) are recorded and
// reported back but change nothing. C++11.
#ifndef GRADOPS_COMPAT_ATB_CONTEXT_H_
#define GRADOPS_COMPAT_ATB_CONTEXT_H_

#include <acl/acl.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "atb/types.h"

namespace atb {

enum ExecuteType : int { EXECUTE_NORMAL = 0, EXECUTE_PRELAUNCH, EXECUTE_LAUNCH };
enum LaunchMode : int { KERNEL_LAUNCH_MODE = 0, GRAPH_LAUNCH_MODE };

class Context {
 public:
  Context() = default;
  virtual ~Context() = default;

  virtual Status SetExecuteStream(aclrtStream stream) = 0;
  virtual aclrtStream GetExecuteStream() const = 0;
  virtual Status SetAsyncTilingCopyStatus(bool enable) = 0;
  virtual bool GetAsyncTilingCopyStatus() const = 0;
  virtual Status SetExecuteStreams(const std::vector<aclrtStream>& streams) = 0;
  virtual std::vector<aclrtStream> GetExecuteStreams() = 0;
  virtual Status SetExecuteType(ExecuteType type) = 0;
  virtual ExecuteType GetExecuteType() = 0;
  virtual Status SetLaunchMode(LaunchMode mode) = 0;
  virtual LaunchMode GetLaunchMode() = 0;
};

Status CreateContext(Context** context);
// The allocator pair is accepted for compatibility; workspaces come from the caller.
Status CreateContext(Context** context, const std::function<void*(size_t)>& alloc,
                     const std::function<void(void*)>& dealloc);
Status CreateContext(Context** context, uint32_t hostTilingBlockNum, uint32_t deviceTilingBlockNum);
// Fails with ERROR_INVALID_CONTEXT_ADDR for a context not made by CreateContext.
Status DestroyContext(Context* context);

}  // namespace atb

#endif  // GRADOPS_COMPAT_ATB_CONTEXT_H_
