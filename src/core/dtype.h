// Scalar conversions between float32 and the 16-bit storage types, and
// element access by runtime dtype. float32 -> float16/bfloat16 rounds to
// nearest, ties to even; NaN stays NaN (quiet), infinities and signed zeros
// are kept; float16 overflow gives infinity.
#pragma once

#include <cstdint>
#include <cstring>

#include "gradops/tensor.h"

namespace gradops {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float BFloat16ToFloat(uint16_t h) { return BitsFloat(uint32_t{h} << 16); }

inline uint16_t FloatToBFloat16(float f) {
  const uint32_t u = FloatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // NaN
  const uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

inline float Float16ToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return BitsFloat(sign | 0x7F800000u | (mantissa << 13));  // Inf/NaN
  if (exponent != 0) return BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float32.
  const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

inline uint16_t FloatToFloat16(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7E00u | static_cast<uint16_t>((abs >> 13) & 0x3FFu);  // NaN
  if (abs >= 0x477FF000u) return sign | 0x7C00u;  // rounds to >= 65520: infinity
  if (abs < 0x38800000u) {
    // Subnormal or zero result: round |f| / 2^-24 to an integer, ties to even.
    const uint32_t exponent = abs >> 23;
    if (exponent < 102) return sign;  // < 2^-25: rounds to zero
    const uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24 bits dropped from a 24-bit mantissa
    const uint32_t kept = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    const uint32_t rounded = kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
    return sign | static_cast<uint16_t>(rounded);
  }
  // Normal: rebias the exponent, round 13 dropped mantissa bits to nearest even.
  const uint32_t rebased = abs - (112u << 23);
  const uint32_t rounding = 0xFFFu + ((rebased >> 13) & 1u);
  return sign | static_cast<uint16_t>((rebased + rounding) >> 13);
}

// Round a float to the precision of `dtype` (identity for float32).
inline float RoundTo(DType dtype, float f) {
  switch (dtype) {
    case DType::kFloat16: return Float16ToFloat(FloatToFloat16(f));
    case DType::kBFloat16: return BFloat16ToFloat(FloatToBFloat16(f));
    default: return f;
  }
}

// Element `index` (in elements from base) of a buffer of `dtype`, as float.
inline float LoadAsFloat(const void* base, DType dtype, int64_t index) {
  switch (dtype) {
    case DType::kFloat16: return Float16ToFloat(static_cast<const uint16_t*>(base)[index]);
    case DType::kBFloat16: return BFloat16ToFloat(static_cast<const uint16_t*>(base)[index]);
    default: return static_cast<const float*>(base)[index];
  }
}

inline void StoreFromFloat(void* base, DType dtype, int64_t index, float value) {
  switch (dtype) {
    case DType::kFloat16: static_cast<uint16_t*>(base)[index] = FloatToFloat16(value); break;
    case DType::kBFloat16: static_cast<uint16_t*>(base)[index] = FloatToBFloat16(value); break;
    default: static_cast<float*>(base)[index] = value; break;
  }
}

}  // namespace gradops
