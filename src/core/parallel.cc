#include "core/parallel.h"

#include <atomic>

#include "gradops/ops.h"

namespace gradops {
namespace {
std::atomic<int> g_threads{0};
}

void SetNumThreads(int threads) { g_threads.store(threads > 0 ? threads : 0); }

int NumThreads() { return ConfiguredThreads(); }

int ConfiguredThreads() {
  const int n = g_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

}  // namespace gradops
