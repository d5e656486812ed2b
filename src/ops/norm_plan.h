// Lowering of the four norm operators onto the CPU norm core.
#pragma once

#include "cpu/norm.h"
#include "gradops/ops.h"

namespace gradops {

// The first `lead_rank` dims of `view` index rows, the rest columns.
cpu::MatrixOperand MatrixOf(const TensorView& view, int lead_rank);
cpu::VectorOperand VectorOf(const TensorView& view);
cpu::RowStat RowStatOf(const TensorView& view);
cpu::RowStat RowStatConstant(float value);

// Schedules `problem` and stores it in *plan.
Status MakeNormPlan(const char* name, const cpu::NormProblem& problem, Plan* plan);

}  // namespace gradops
