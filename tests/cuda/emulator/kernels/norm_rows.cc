// norm_rows.cu compiled for the CPU emulation (../emulator.h), as device code of
// compute capability 9.0; the emulated device decides what runs.
#define __CUDA_ARCH__ 900
#include "cuda/norm_rows.cu"
