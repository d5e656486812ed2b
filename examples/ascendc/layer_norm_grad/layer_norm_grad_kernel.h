// Entry points of the LayerNormGrad example kernel. GM arguments: dy, x,
// variance, mean, gamma (inputs), pdX, resForGamma (outputs), workspace
// (unused), tiling (optiling::LayerNormGradExampleTiling).
#pragma once

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void layer_norm_grad_float(GM_ADDR dy, GM_ADDR x, GM_ADDR variance, GM_ADDR mean,
                                                            GM_ADDR gamma, GM_ADDR pdX, GM_ADDR resForGamma,
                                                            GM_ADDR workspace, GM_ADDR tiling);
extern "C" __global__ __aicore__ void layer_norm_grad_half(GM_ADDR dy, GM_ADDR x, GM_ADDR variance, GM_ADDR mean,
                                                           GM_ADDR gamma, GM_ADDR pdX, GM_ADDR resForGamma,
                                                           GM_ADDR workspace, GM_ADDR tiling);
