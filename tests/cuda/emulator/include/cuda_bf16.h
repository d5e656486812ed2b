// __nv_bfloat16 for the CPU emulation: the upper 16 bits of a float32,
// rounded to nearest even; NaN becomes the canonical 0x7FFF, as the GPU's
// conversion instruction gives (what __float2bfloat16_rn does).
#pragma once

#include <cstdint>
#include <cstring>

struct alignas(2) __nv_bfloat16 {
  uint16_t bits;
};

inline float __bfloat162float(__nv_bfloat16 h) {
  const uint32_t u = uint32_t{h.bits} << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return {0x7FFF};
  u += 0x7FFFu + ((u >> 16) & 1u);
  return {static_cast<uint16_t>(u >> 16)};
}
