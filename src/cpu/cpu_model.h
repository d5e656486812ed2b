// Which CPU this is, for the schedule rules measured on one kind of CPU
// (docs/performance.md): the norm sweeps and SiLU's table lookups. A rule
// changes the speed, never the results.
#pragma once

namespace gradops {
namespace cpu {

// kIntel: any Intel CPU (rules measured on a Xeon with AVX-512). kZen5: AMD
// from family 0x1A (rules measured on a Zen 5 EPYC). kOther: the rest, which
// keep the rules measured on a Zen 4 (AVX-512) and a Zen 3 (AVX2).
enum class CpuModel { kIntel, kZen5, kOther };

CpuModel ThisCpu();  // read once

}  // namespace cpu
}  // namespace gradops
