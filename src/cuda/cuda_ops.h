// The device side of planning: where a problem's data lives, and the
// PlannedOps that run a norm or SiLU problem on the GPU. Called from
// src/ops only when the library is built with GRADOPS_HAVE_CUDA.
#pragma once

#include "cpu/norm.h"
#include "cpu/silu.h"
#include "gradops/ops.h"

namespace gradops {
namespace cuda {

// When every data pointer of the problem is device memory, plans it on the
// GPU and sets *planned; when every one is host memory, leaves *plan alone
// and clears *planned; InvalidArgument when they are mixed or on different
// devices.
Status PlanNormOnDevice(const char* name, const cpu::NormProblem& problem, Plan* plan, bool* planned);
Status PlanSiluOnDevice(const cpu::SiluProblem& problem, Plan* plan, bool* planned);

}  // namespace cuda
}  // namespace gradops
