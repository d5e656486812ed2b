// Which CPU this is, for the schedule rules measured on one kind of CPU
// (docs/performance.md): the norm sweeps and SiLU's table lookups. A rule
// changes the speed, never the results.
#pragma once

namespace gradops {
namespace cpu {

// kIntel: any Intel CPU (rules measured on a Xeon with AVX-512). kZen5: AMD
// from family 0x1A (rules measured on a Zen 5 EPYC). kAmd: AMD before it
// (rules measured on a Zen 4 with AVX-512 and a Zen 3 with AVX2). kOther: the
// rest, with kAmd's rules, SiLU's division aside (silu_driver.cc).
enum class CpuModel { kIntel, kZen5, kAmd, kOther };

CpuModel ThisCpu();  // read once

}  // namespace cpu
}  // namespace gradops
