// `half`, the IEEE binary16 type of AscendC kernels: 16 bits of storage,
// conversion from any arithmetic type rounds to nearest even (through
// float), conversion to float is exact, and arithmetic is done in float and
// rounded back. Mixed expressions with other arithmetic types compute in
// their common type with float, as a promotion would.
#pragma once

#include <cstdint>
#include <type_traits>

namespace gradops {
namespace ascendc {
float HalfBitsToFloat(uint16_t bits);
uint16_t FloatToHalfBits(float value);  // round to nearest even
}  // namespace ascendc
}  // namespace gradops

class half {
 public:
  half() = default;
  template <typename U, typename std::enable_if<std::is_arithmetic<U>::value, int>::type = 0>
  half(U value) : bits_(::gradops::ascendc::FloatToHalfBits(static_cast<float>(value))) {}  // NOLINT

  operator float() const { return ::gradops::ascendc::HalfBitsToFloat(bits_); }  // NOLINT

  static half FromBits(uint16_t bits) {
    half h;
    h.bits_ = bits;
    return h;
  }
  uint16_t bits() const { return bits_; }

  half operator-() const { return FromBits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
  half operator+() const { return *this; }
  half& operator+=(half o) { return *this = half(float(*this) + float(o)); }
  half& operator-=(half o) { return *this = half(float(*this) - float(o)); }
  half& operator*=(half o) { return *this = half(float(*this) * float(o)); }
  half& operator/=(half o) { return *this = half(float(*this) / float(o)); }

 private:
  uint16_t bits_ = 0;
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half must be 16 plain bits");

namespace gradops {
namespace ascendc {
template <typename U>
using EnableIfArithmetic = typename std::enable_if<std::is_arithmetic<U>::value, int>::type;
}  // namespace ascendc
}  // namespace gradops

#define GRADOPS_HALF_ARITHMETIC(op)                                                              \
  inline half operator op(half a, half b) { return half(float(a) op float(b)); }                 \
  template <typename U, ::gradops::ascendc::EnableIfArithmetic<U> = 0>                          \
  inline auto operator op(half a, U b) -> decltype(float() op U()) { return float(a) op b; }    \
  template <typename U, ::gradops::ascendc::EnableIfArithmetic<U> = 0>                          \
  inline auto operator op(U a, half b) -> decltype(U() op float()) { return a op float(b); }
GRADOPS_HALF_ARITHMETIC(+)
GRADOPS_HALF_ARITHMETIC(-)
GRADOPS_HALF_ARITHMETIC(*)
GRADOPS_HALF_ARITHMETIC(/)
#undef GRADOPS_HALF_ARITHMETIC

#define GRADOPS_HALF_COMPARISON(op)                                                    \
  inline bool operator op(half a, half b) { return float(a) op float(b); }             \
  template <typename U, ::gradops::ascendc::EnableIfArithmetic<U> = 0>                \
  inline bool operator op(half a, U b) { return float(a) op b; }                       \
  template <typename U, ::gradops::ascendc::EnableIfArithmetic<U> = 0>                \
  inline bool operator op(U a, half b) { return a op float(b); }
GRADOPS_HALF_COMPARISON(==)
GRADOPS_HALF_COMPARISON(!=)
GRADOPS_HALF_COMPARISON(<)
GRADOPS_HALF_COMPARISON(<=)
GRADOPS_HALF_COMPARISON(>)
GRADOPS_HALF_COMPARISON(>=)
#undef GRADOPS_HALF_COMPARISON
