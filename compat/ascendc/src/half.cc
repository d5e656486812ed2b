// The conversions behind `half`: the core's round-to-nearest-even ones.
#include "core/dtype.h"
#include "gradops_ascendc/half.h"

namespace gradops {
namespace ascendc {

float HalfBitsToFloat(uint16_t bits) { return Float16ToFloat(bits); }
uint16_t FloatToHalfBits(float value) { return FloatToFloat16(value); }

}  // namespace ascendc
}  // namespace gradops
