// The STREAM triad a = b + s * c, the bandwidth ceiling of a kernel that
// reads two arrays and writes one, and a read of two arrays alone, that of
// a kernel that only reads them (LayerNormGradBeta). Used by the benchmark
// only.
#pragma once

#include <cstdint>

namespace gradops {
namespace cpu {

// n floats; with `nontemporal`, a must be 64-byte aligned and stores bypass
// the caches.
void Triad(float* a, const float* b, const float* c, float s, int64_t n, bool nontemporal);

// The sum of b[i] * c[i] over n floats (returned so that the reads happen).
float ReadTwo(const float* b, const float* c, int64_t n);

}  // namespace cpu
}  // namespace gradops
