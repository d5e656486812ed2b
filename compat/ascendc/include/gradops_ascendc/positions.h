// Queue positions (TPosition is the same enum) and hardware pipes. On the
// vector core VECIN, VECOUT and VECCALC are all carved from the UB.
#pragma once

#include <cstdint>

namespace AscendC {

enum class QuePosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM,
  TSCM,
  C2PIPE2GM,
  MAX,
};
using TPosition = QuePosition;

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };

// Blocks run each kernel statement in order, so every pipe is always drained.
template <pipe_t pipe = PIPE_ALL>
inline void PipeBarrier() {}

}  // namespace AscendC

namespace gradops {
namespace ascendc {
// "VECIN", ...; null for positions outside the vector core's UB.
const char* UbPositionName(AscendC::QuePosition position);
}  // namespace ascendc
}  // namespace gradops
