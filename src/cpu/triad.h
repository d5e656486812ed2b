// The STREAM triad a = b + s * c, the bandwidth ceiling of a kernel that
// reads two arrays and writes one. Used by the benchmark only.
#pragma once

#include <cstdint>

namespace gradops {
namespace cpu {

// n floats; with `nontemporal`, a must be 64-byte aligned and stores bypass
// the caches.
void Triad(float* a, const float* b, const float* c, float s, int64_t n, bool nontemporal);

}  // namespace cpu
}  // namespace gradops
