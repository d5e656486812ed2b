// Test-wide choices taken from the environment before any test runs:
//
// GRADOPS_TEST_TARGET=NAME (a Highway target: AVX3, AVX2, SSE4, SSSE3,
// SCALAR, ...) runs the suite on that target instead of the best one the CPU
// has, so that the kernels' other compiled targets are tested too (CTest's
// core_on_* entries). A target this CPU cannot run, or that was not compiled,
// exits with 77: CTest reports the entry as skipped.
//
// GRADOPS_TEST_NORM_SWEEP=rows|blocks|fused makes every norm plan sweep its rows
// that way instead of the target's way (cpu/norm.h), so that both are tested
// on every machine (CTest's core_norm_sweep_* entries).
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <cstdlib>
#include <cstring>

#include "cpu/norm.h"
#include "hwy/targets.h"

namespace {

const bool target_chosen = [] {
  const char* name = std::getenv("GRADOPS_TEST_TARGET");
  if (name == nullptr || *name == '\0') return false;
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (std::strcmp(hwy::TargetName(target), name) == 0) {
      hwy::SetSupportedTargetsForTest(target);
      std::printf("[gradops] every kernel on Highway target %s\n", name);
      return true;
    }
  }
  std::printf("[gradops] Highway target %s: not compiled, or not supported by this CPU\n", name);
  std::exit(77);
}();

const bool sweep_chosen = [] {
  const char* name = std::getenv("GRADOPS_TEST_NORM_SWEEP");
  if (name == nullptr || *name == '\0') return false;
  const struct {
    const char* name;
    gradops::cpu::NormSweep sweep;
  } sweeps[] = {{"rows", gradops::cpu::NormSweep::kRows},
                {"blocks", gradops::cpu::NormSweep::kBlocks},
                {"fused", gradops::cpu::NormSweep::kFused}};
  const auto* chosen = std::find_if(std::begin(sweeps), std::end(sweeps),
                                    [&](const auto& s) { return std::strcmp(s.name, name) == 0; });
  if (chosen == std::end(sweeps)) {
    std::fprintf(stderr, "[gradops] GRADOPS_TEST_NORM_SWEEP=%s: expected rows, blocks or fused\n", name);
    std::exit(1);
  }
  gradops::cpu::SetNormSweep(chosen->sweep);
  std::printf("[gradops] every norm plan sweeps %s\n", name);
  return true;
}();

}  // namespace
