// atb::Context: the execute stream and the recorded settings; CreateContext
// and DestroyContext.
#include <new>

#include "atb/context.h"
#include "atb/registry.h"
#include "common/error_message.h"
#include "common/live_set.h"

namespace gradops {
namespace cann {
namespace {

class CpuContext final : public atb::Context {
 public:
  atb::Status SetExecuteStream(aclrtStream stream) override {
    stream_ = stream;
    return atb::NO_ERROR;
  }
  aclrtStream GetExecuteStream() const override { return stream_; }
  atb::Status SetAsyncTilingCopyStatus(bool enable) override {
    async_tiling_copy_ = enable;
    return atb::NO_ERROR;
  }
  bool GetAsyncTilingCopyStatus() const override { return async_tiling_copy_; }
  // The first stream is the execute stream.
  atb::Status SetExecuteStreams(const std::vector<aclrtStream>& streams) override {
    streams_ = streams;
    if (!streams.empty()) stream_ = streams.front();
    return atb::NO_ERROR;
  }
  std::vector<aclrtStream> GetExecuteStreams() override {
    return streams_.empty() ? std::vector<aclrtStream>{stream_} : streams_;
  }
  atb::Status SetExecuteType(atb::ExecuteType type) override {
    execute_type_ = type;
    return atb::NO_ERROR;
  }
  atb::ExecuteType GetExecuteType() override { return execute_type_; }
  atb::Status SetLaunchMode(atb::LaunchMode mode) override {
    launch_mode_ = mode;
    return atb::NO_ERROR;
  }
  atb::LaunchMode GetLaunchMode() override { return launch_mode_; }

 private:
  aclrtStream stream_ = nullptr;
  std::vector<aclrtStream> streams_;
  bool async_tiling_copy_ = false;
  atb::ExecuteType execute_type_ = atb::EXECUTE_NORMAL;
  atb::LaunchMode launch_mode_ = atb::KERNEL_LAUNCH_MODE;
};

}  // namespace

bool IsLiveContext(const atb::Context* context) { return Live<atb::Context>().Contains(context); }

}  // namespace cann
}  // namespace gradops

namespace atb {

using gradops::cann::Fail;
using gradops::cann::Live;

Status CreateContext(Context** context) {
  if (context == nullptr) return Fail<Status>(ERROR_INVALID_PARAM, "CreateContext: context is null");
  Context* created = new (std::nothrow) gradops::cann::CpuContext();
  if (created == nullptr) return Fail<Status>(ERROR_OUT_OF_HOST_MEMORY, "CreateContext: out of memory");
  Live<Context>().Add(created);
  *context = created;
  return NO_ERROR;
}

Status CreateContext(Context** context, const std::function<void*(size_t)>&, const std::function<void(void*)>&) {
  return CreateContext(context);
}

Status CreateContext(Context** context, uint32_t, uint32_t) { return CreateContext(context); }

Status DestroyContext(Context* context) {
  if (context == nullptr || !Live<Context>().Remove(context)) {
    return Fail<Status>(ERROR_INVALID_CONTEXT_ADDR, "DestroyContext: not a live context (destroyed, or foreign)");
  }
  delete context;
  return NO_ERROR;
}

}  // namespace atb
