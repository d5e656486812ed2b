#include "core/parallel.h"

#include <atomic>

#include "gradops/ops.h"

namespace gradops {
namespace {
std::atomic<int> g_threads{0};
thread_local int t_threads = 0;  // 0: no ScopedPlanThreads on this thread
}  // namespace

ScopedPlanThreads::ScopedPlanThreads(int threads) : saved_(t_threads) { t_threads = threads > 0 ? threads : 0; }
ScopedPlanThreads::~ScopedPlanThreads() { t_threads = saved_; }

void SetNumThreads(int threads) { g_threads.store(threads > 0 ? threads : 0); }

int NumThreads() { return ConfiguredThreads(); }

int ConfiguredThreads() {
  if (t_threads > 0) return t_threads;
  const int n = g_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

}  // namespace gradops
