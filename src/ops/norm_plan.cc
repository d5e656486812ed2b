#include "ops/norm_plan.h"

#include "core/parallel.h"
#include "ops/planned_op.h"
#if GRADOPS_HAVE_CUDA
#include "cuda/cuda_ops.h"
#endif

namespace gradops {
namespace {

class NormOp final : public internal::PlannedOp {
 public:
  NormOp(const char* name, const cpu::NormProblem& problem, int threads)
      : name_(name), problem_(problem), schedule_(cpu::ScheduleNorm(problem, threads)) {}
  const char* name() const override { return name_; }
  size_t workspace_bytes() const override { return schedule_.workspace_bytes; }
  int threads() const override { return schedule_.threads; }
  Status Execute(void* workspace, void*) const override {
    cpu::RunNorm(problem_, schedule_, workspace);
    return Status::Ok();
  }

 private:
  const char* name_;
  cpu::NormProblem problem_;
  cpu::NormSchedule schedule_;
};

void* FirstElement(const TensorView& view) {
  return static_cast<char*>(view.data) + view.offset * static_cast<int64_t>(DTypeSize(view.dtype));
}

}  // namespace

cpu::MatrixOperand MatrixOf(const TensorView& view, int lead_rank) {
  cpu::MatrixOperand m;
  m.data = FirstElement(view);
  m.dtype = view.dtype;
  m.rows = MakeLayout(view.shape, view.strides, 0, lead_rank);
  m.cols = MakeLayout(view.shape, view.strides, lead_rank, view.rank);
  return m;
}

cpu::VectorOperand VectorOf(const TensorView& view) {
  cpu::VectorOperand v;
  v.data = FirstElement(view);
  v.dtype = view.dtype;
  v.layout = MakeLayout(view.shape, view.strides, 0, view.rank);
  return v;
}

cpu::RowStat RowStatOf(const TensorView& view) {
  cpu::RowStat stat;
  stat.from_view = true;
  stat.values = VectorOf(view);
  return stat;
}

cpu::RowStat RowStatConstant(float value) {
  cpu::RowStat stat;
  stat.constant = value;
  return stat;
}

Status MakeNormPlan(const char* name, const cpu::NormProblem& problem, Plan* plan) {
#if GRADOPS_HAVE_CUDA
  bool on_device = false;
  const Status placed = cuda::PlanNormOnDevice(name, problem, plan, &on_device);
  if (!placed.ok() || on_device) return placed;
#endif
  *plan = Plan(std::make_shared<NormOp>(name, problem, ConfiguredThreads()));
  return Status::Ok();
}

}  // namespace gradops
