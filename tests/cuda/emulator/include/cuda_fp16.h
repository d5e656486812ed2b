// __half for the CPU emulation: IEEE binary16 bits, converted by the
// compiler's _Float16 (round to nearest even, as __float2half_rn); NaN
// becomes the canonical 0x7FFF, as the GPU's conversion instruction gives.
#pragma once

#include <cstdint>
#include <cstring>

struct alignas(2) __half {
  uint16_t bits;
};

inline float __half2float(__half h) {
  _Float16 f;
  std::memcpy(&f, &h.bits, sizeof f);
  return static_cast<float>(f);
}

inline __half __float2half_rn(float v) {
  if (v != v) return {0x7FFF};
  const _Float16 f = static_cast<_Float16>(v);
  __half h;
  std::memcpy(&h.bits, &f, sizeof h.bits);
  return h;
}
