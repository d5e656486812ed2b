// The fields of the LayerNormGrad and LayerNormGradBeta tiling structs, in
// their documented order, as X-macro lists: the plain kernel-side structs
// and the host-side optiling classes are both generated from these, so the
// two layouts cannot drift apart. Every field is a uint32_t.
#pragma once

// 30 fields. The last two hold the float bits of 1/originalHLength and
// 2/originalHLength.
#define GRADOPS_ASCENDC_LAYER_NORM_GRAD_TILING_FIELDS(F)                                              \
  F(stackBufferSize) F(bLength) F(sLength) F(hLength) F(originalHLength) F(oneCalSize) F(nohCalSize)   \
  F(loopNum) F(tailSize) F(nohTailSize) F(tmpTensorBSHPos) F(tmpTensorBSHSize) F(pdVarTensorPos)       \
  F(pdVarTensorSize) F(pdMeanTensorPos) F(pdMeanTensorSize) F(x1TensorPos) F(x1TensorSize)             \
  F(x2TensorPos) F(x2TensorSize) F(x3TensorPos) F(x3TensorSize) F(tmpTensorPos) F(tmpTensorSize)       \
  F(tmpTensor1Pos) F(tmpTensor1Size) F(tmpTensor2Pos) F(tmpTensor2Size) F(lastDimValueBack)            \
  F(lastDimValueBackMulTwo)

// 20 fields; stackBufferSize counts float32 elements, not bytes.
#define GRADOPS_ASCENDC_LAYER_NORM_GRAD_BETA_TILING_FIELDS(F)                                         \
  F(stackBufferSize) F(bLength) F(sLength) F(hLength) F(originalHLength) F(bshLength) F(bsLength)      \
  F(oneCalSize) F(numberOfTmpBuf) F(loopRound) F(inputTailSize) F(inputTailPos) F(bsTailSize)          \
  F(bshCurLength) F(bsCurLength) F(gammaTempTensorPos) F(betaTempTensorPos) F(inputDyTmpTensorPos)     \
  F(resForGammaTmpTensorPos) F(reserved)
