// Wall-clock timing for the benchmark and its peers: the median of several
// timed calls after one warm-up call, each call starting with the caches
// emptied of its data (ColdMedianMs) or as the previous call left them
// (MedianMs).
#pragma once

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gradops {
namespace tool {

// Bytes read by EvictCaches: twice the largest cache the C library reports
// (the last level's; 256 MiB when it reports none), at most 2 GiB.
inline size_t EvictionBytes() {
  long largest = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  largest = std::max({sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE), sysconf(_SC_LEVEL3_CACHE_SIZE),
                      sysconf(_SC_LEVEL4_CACHE_SIZE)});
#endif
  const size_t bytes = largest > 0 ? 2 * static_cast<size_t>(largest) : size_t{256} << 20;
  return std::min(bytes, size_t{2} << 30);
}

// Reads a buffer of EvictionBytes() on every processor, so that the next
// call finds none of its own data in the caches: inputs come from memory
// even where the last-level cache could hold them (a server's L3 can hold
// a benchmark shape's 96-192 MiB), as they would in training, where other
// layers' work passes through the caches between a forward and a backward.
// The lines it leaves are clean: no write-back falls into the timed call.
inline void EvictCaches() {
  static const std::vector<int64_t> buffer(EvictionBytes() / sizeof(int64_t), 1);
  static volatile int64_t sink = 0;
  const int64_t n = static_cast<int64_t>(buffer.size());
  const int64_t* data = buffer.data();
  constexpr int64_t kLine = 64 / sizeof(int64_t);
  int64_t sum = 0;
#pragma omp parallel for num_threads(omp_get_num_procs()) reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; i += kLine) sum += data[i];
  sink = sink + sum;
}

// Median of `reps` timed calls of f after one warm-up call; `before` runs
// ahead of each call, untimed.
template <class F, class B>
double MedianMs(int reps, F&& f, B&& before) {
  before();
  f();  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    before();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class F>
double MedianMs(int reps, F&& f) {
  return MedianMs(reps, f, [] {});
}

// The benchmark's timing: every call from memory (EvictCaches first).
template <class F>
double ColdMedianMs(int reps, F&& f) {
  return MedianMs(reps, f, EvictCaches);
}

}  // namespace tool
}  // namespace gradops
