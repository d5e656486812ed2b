// Entry points of the LayerNormGradBeta example kernel. GM arguments:
// resForGamma, dy (inputs, rows x H), pdGamma, pdBeta (outputs, blockDim x H:
// one partial sum per block, added up by the host), tiling.
#pragma once

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void layer_norm_grad_beta_float(GM_ADDR resForGamma, GM_ADDR dy, GM_ADDR pdGamma,
                                                                 GM_ADDR pdBeta, GM_ADDR tiling);
extern "C" __global__ __aicore__ void layer_norm_grad_beta_half(GM_ADDR resForGamma, GM_ADDR dy, GM_ADDR pdGamma,
                                                                GM_ADDR pdBeta, GM_ADDR tiling);
