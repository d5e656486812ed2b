// SiLU backward: validation, broadcasting and lowering.
#include <algorithm>

#include "core/parallel.h"
#include "cpu/silu.h"
#include "ops/planned_op.h"
#include "ops/validate.h"
#if GRADOPS_HAVE_CUDA
#include "cuda/cuda_ops.h"
#endif

namespace gradops {
namespace {

class SiluOp final : public internal::PlannedOp {
 public:
  SiluOp(const cpu::SiluProblem& problem, int threads)
      : problem_(problem), schedule_(cpu::ScheduleSilu(problem, threads)) {}
  const char* name() const override { return "silu_backward"; }
  size_t workspace_bytes() const override { return 0; }
  int threads() const override { return schedule_.threads; }
  Status Execute(void*, void*) const override {
    cpu::RunSilu(problem_, schedule_);
    return Status::Ok();
  }

 private:
  cpu::SiluProblem problem_;
  cpu::SiluSchedule schedule_;
};

// Strides of `in` broadcast (NumPy rules, aligned at the right) to `out`'s
// shape, or false when the shapes do not broadcast.
bool BroadcastStrides(const TensorView& in, const TensorView& out, int64_t* strides) {
  if (in.rank > out.rank) return false;
  const int shift = out.rank - in.rank;
  for (int d = 0; d < out.rank; ++d) {
    if (d < shift) {
      strides[d] = 0;
      continue;
    }
    const int64_t size = in.shape[d - shift];
    if (size == out.shape[d]) {
      strides[d] = size == 1 ? 0 : in.strides[d - shift];
    } else if (size == 1) {
      strides[d] = 0;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

Status PlanSiluBackward(const SiluBackwardArgs& a, Plan* plan) {
  if (plan == nullptr) return NullPointer("plan: null");
  GRADOPS_RETURN_IF_ERROR(CheckView("dy", a.dy));
  GRADOPS_RETURN_IF_ERROR(CheckView("x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("dx", a.dx));
  const bool same = a.dy.dtype == a.dx.dtype && a.x.dtype == a.dx.dtype;
  if (!same && a.dx.dtype != DType::kFloat32) {
    return InvalidArgument(std::string("dx: dtypes dy ") + DTypeName(a.dy.dtype) + ", x " + DTypeName(a.x.dtype) +
                           ", dx " + DTypeName(a.dx.dtype) +
                           " must be equal, or dx float32 when the inputs differ");
  }
  // dx's shape must be the broadcast of dy's and x's.
  int64_t strides[3][kMaxRank] = {};
  const TensorView* views[3] = {&a.dy, &a.x, &a.dx};
  const int out_rank = std::max(a.dy.rank, a.x.rank);
  bool ok = a.dx.rank == out_rank;
  for (int k = 0; ok && k < 2; ++k) ok = BroadcastStrides(*views[k], a.dx, strides[k]);
  for (int d = 0; ok && d < out_rank; ++d) {
    const int64_t dy_size = d - (out_rank - a.dy.rank) >= 0 ? a.dy.shape[d - (out_rank - a.dy.rank)] : 1;
    const int64_t x_size = d - (out_rank - a.x.rank) >= 0 ? a.x.shape[d - (out_rank - a.x.rank)] : 1;
    ok = a.dx.shape[d] == std::max(dy_size, x_size) || (a.dx.shape[d] == 0 && (dy_size == 0 || x_size == 0));
  }
  if (!ok) {
    return InvalidArgument("dx: shape " + ShapeString(a.dx) + " is not the broadcast of dy " + ShapeString(a.dy) +
                           " and x " + ShapeString(a.x));
  }
  for (int d = 0; d < a.dx.rank; ++d) strides[2][d] = a.dx.strides[d];

  // Drop size-1 dims and merge dims that are contiguous for all three operands.
  cpu::SiluProblem p;
  p.rank = 0;
  p.numel = a.dx.numel();
  for (int d = 0; d < a.dx.rank; ++d) {
    const int64_t size = a.dx.shape[d];
    if (size == 1) continue;
    const int r = p.rank;
    bool merge = r > 0;
    for (int k = 0; merge && k < 3; ++k) merge = p.stride[k][r - 1] == strides[k][d] * size;
    if (merge) {
      p.size[r - 1] *= size;
      for (int k = 0; k < 3; ++k) p.stride[k][r - 1] = strides[k][d];
    } else {
      p.size[r] = size;
      for (int k = 0; k < 3; ++k) p.stride[k][r] = strides[k][d];
      p.rank = r + 1;
    }
  }
  if (p.rank == 0) {  // a single element
    p.rank = 1;
    p.size[0] = 1;
    for (int k = 0; k < 3; ++k) p.stride[k][0] = 1;
  }
  for (int k = 0; k < 3; ++k) {
    p.dtype[k] = views[k]->dtype;
    p.data[k] = static_cast<char*>(views[k]->data) + views[k]->offset * static_cast<int64_t>(DTypeSize(p.dtype[k]));
  }
#if GRADOPS_HAVE_CUDA
  bool on_device = false;
  const Status placed = cuda::PlanSiluOnDevice(p, plan, &on_device);
  if (!placed.ok() || on_device) return placed;
#endif
  *plan = Plan(std::make_shared<SiluOp>(p, ConfiguredThreads()));
  return Status::Ok();
}

}  // namespace gradops
