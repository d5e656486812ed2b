// The deterministic parallel-for: tasks [0, n) are independent and each is
// run by exactly one thread; which thread runs a task never changes a result.
#pragma once

#include <omp.h>

#include <cstdint>

namespace gradops {

// Threads for new plans: this thread's ScopedPlanThreads if one is active,
// else SetNumThreads, else every hardware thread.
int ConfiguredThreads();

// Within its scope, plans made on the calling thread use `threads` threads.
// Callers that are already one of many parallel workers (the blocks of an
// emulated AscendC kernel) plan single-threaded work this way.
class ScopedPlanThreads {
 public:
  explicit ScopedPlanThreads(int threads);
  ~ScopedPlanThreads();
  ScopedPlanThreads(const ScopedPlanThreads&) = delete;
  ScopedPlanThreads& operator=(const ScopedPlanThreads&) = delete;

 private:
  int saved_;
};

// Runs fn(task, thread) for task in [0, tasks) on `threads` threads, with a
// static schedule; thread is in [0, threads).
template <class F>
void ParallelFor(int64_t tasks, int threads, F&& fn) {
  if (threads <= 1 || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  const int used = tasks < threads ? static_cast<int>(tasks) : threads;
#pragma omp parallel num_threads(used)
  {
    const int thread = omp_get_thread_num();
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tasks; ++t) fn(t, thread);
  }
}

}  // namespace gradops
