// The AscendC kernel programming interface, emulated on the CPU: qualifiers,
// half, GlobalTensor / LocalTensor, TPipe / TQue / TBuf over a 192 KiB
// Unified Buffer per block, DataCopy, block indices, tiling data, and the
// high-level LayerNormGrad and LayerNormGradBeta functions. Kernels run
// through ICPU_RUN_KF (tikicpulib.h). docs/compatibility.md lists what is
// provided.
#pragma once

#include "gradops_ascendc/block.h"
#include "gradops_ascendc/data_copy.h"
#include "gradops_ascendc/global_tensor.h"
#include "gradops_ascendc/half.h"
#include "gradops_ascendc/kernel_macros.h"
#include "gradops_ascendc/layer_norm_grad.h"
#include "gradops_ascendc/layer_norm_grad_beta.h"
#include "gradops_ascendc/local_tensor.h"
#include "gradops_ascendc/positions.h"
#include "gradops_ascendc/queue.h"
#include "kernel_tiling/kernel_tiling.h"
