// gradops: backward operators of LayerNorm, RMSNorm and SiLU.
#pragma once

#include "gradops/ops.h"
#include "gradops/status.h"
#include "gradops/tensor.h"
