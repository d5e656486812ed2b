// PlannedOps of the CUDA backend and the host/device placement check.
// A device plan's Run launches on the caller's stream (null: the legacy
// default stream) and returns without waiting; its workspace must be device
// memory.
#include "cuda/cuda_ops.h"

#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.h"
#include "ops/planned_op.h"
#include "ops/validate.h"

namespace gradops {
namespace cuda {
namespace {

// Runs on `device`, restoring the caller's current device afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    cudaGetDevice(&saved_);
    if (device >= 0 && device != saved_) cudaSetDevice(device);
  }
  ~DeviceScope() {
    int now = saved_;
    cudaGetDevice(&now);
    if (now != saved_) cudaSetDevice(saved_);
  }

 private:
  int saved_ = 0;
};

// A workspace that is needed must be device memory, or nothing runs.
Status CheckWorkspace(const char* op, void* workspace, size_t bytes) {
  if (bytes == 0 || IsDevicePointer(workspace)) return Status::Ok();
  SetLastRunError(cudaErrorInvalidDevicePointer);
  return Status(StatusCode::kInvalidArgument,
                std::string("workspace: host memory given to a device plan of ") + op + "; it must be device memory");
}

// The launch's error (kept for TakeLastRunError too) as a Status.
Status Launched(const char* op, int error) {
  SetLastRunError(error);
  if (error == cudaSuccess) return Status::Ok();
  return Status(StatusCode::kRuntimeError, std::string(op) + ": CUDA launch failed: " +
                                               cudaGetErrorString(static_cast<cudaError_t>(error)));
}

class CudaNormOp final : public internal::PlannedOp {
 public:
  CudaNormOp(const char* name, const cpu::NormProblem& problem, int device)
      : name_(name), problem_(problem), device_(device), schedule_(ScheduleNorm(problem, QueryDevice(device))) {}
  const char* name() const override { return name_; }
  size_t workspace_bytes() const override { return schedule_.workspace_bytes; }
  int threads() const override { return 1; }
  Status Execute(void* workspace, void* stream) const override {
    GRADOPS_RETURN_IF_ERROR(CheckWorkspace(name_, workspace, schedule_.workspace_bytes));
    DeviceScope scope(device_);
    return Launched(name_, RunNorm(problem_, schedule_, workspace, stream));
  }

 private:
  const char* name_;
  cpu::NormProblem problem_;
  int device_;
  NormSchedule schedule_;
};

class CudaSiluOp final : public internal::PlannedOp {
 public:
  CudaSiluOp(const cpu::SiluProblem& problem, int device)
      : problem_(problem), device_(device), schedule_(ScheduleSilu(problem, QueryDevice(device))) {}
  const char* name() const override { return "silu_backward"; }
  size_t workspace_bytes() const override { return 0; }
  int threads() const override { return 1; }
  Status Execute(void*, void* stream) const override {
    DeviceScope scope(device_);
    return Launched("silu_backward", RunSilu(problem_, schedule_, stream));
  }

 private:
  cpu::SiluProblem problem_;
  int device_;
  SiluSchedule schedule_;
};

using Operands = std::vector<std::pair<const char*, const void*>>;

// Device of the first non-null pointer (-1: host); InvalidArgument when
// another pointer lives elsewhere.
Status Placement(const Operands& operands, int* device) {
  *device = -1;
  const char* first = nullptr;
  for (const auto& [name, data] : operands) {
    if (data == nullptr) continue;
    const int here = DeviceOf(data);
    if (first == nullptr) {
      first = name;
      *device = here;
    } else if ((here >= 0) != (*device >= 0)) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(name) + ": host memory and device memory mixed (" + name + " in " +
                        (here >= 0 ? "device" : "host") + " memory, " + first + " in " +
                        (*device >= 0 ? "device" : "host") + " memory)");
    } else if (here != *device) {
      return Status(StatusCode::kInvalidArgument, std::string(name) + ": on CUDA device " + std::to_string(here) +
                                                      ", " + first + " on device " + std::to_string(*device));
    }
  }
  return Status::Ok();
}

Operands NormOperandsOf(const cpu::NormProblem& p) {
  Operands o = {{"dy", p.dy.data}, {"x", p.x.data}};
  if (p.mean.from_view) o.push_back({"mean", p.mean.values.data});
  if (p.rstd.from_view) o.push_back({p.rstd_is_variance ? "variance" : "rstd", p.rstd.values.data});
  if (p.has_gamma) o.push_back({"gamma", p.gamma.data});
  if (p.want_dx) o.push_back({"dx", p.dx.data});
  if (p.want_res) o.push_back({"res_for_gamma", p.res.data});
  if (p.want_dgamma) o.push_back({"dgamma", p.dgamma.data});
  if (p.want_dbeta) o.push_back({"dbeta", p.dbeta.data});
  return o;
}

Operands SiluOperandsOf(const cpu::SiluProblem& p) {
  return {{"dy", p.data[0]}, {"x", p.data[1]}, {"dx", p.data[2]}};
}

}  // namespace

Status PlanNormOnDevice(const char* name, const cpu::NormProblem& problem, Plan* plan, bool* planned) {
  int device = -1;
  const Status s = Placement(NormOperandsOf(problem), &device);
  *planned = s.ok() && device >= 0;
  if (*planned) *plan = Plan(std::make_shared<CudaNormOp>(name, problem, device));
  return s;
}

Status PlanSiluOnDevice(const cpu::SiluProblem& problem, Plan* plan, bool* planned) {
  int device = -1;
  const Status s = Placement(SiluOperandsOf(problem), &device);
  *planned = s.ok() && device >= 0;
  if (*planned) *plan = Plan(std::make_shared<CudaSiluOp>(problem, device));
  return s;
}

}  // namespace cuda
}  // namespace gradops
