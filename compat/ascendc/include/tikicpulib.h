// CPU debugging of AscendC kernels: GmAlloc / GmFree, SetKernelMode and
// ICPU_RUN_KF. Include it with kernel_operator.h and tiling/tiling_api.h,
// in any order.
#pragma once

#include "gradops_ascendc/launch.h"
#include "kernel_operator.h"
