// GRADOPS_TEST_TARGET=NAME (a Highway target: AVX3, AVX2, SSE4, SSSE3,
// SCALAR, ...) runs the suite on that target instead of the best one the CPU
// has, so that the kernels' other compiled targets are tested too (CTest's
// core_on_* entries). A target this CPU cannot run, or that was not compiled,
// exits with 77: CTest reports the entry as skipped.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hwy/targets.h"

namespace {

const bool chosen = [] {
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

}  // namespace
