// Wall-clock timing for the benchmark and its peers: the median of several
// timed calls after one warm-up call.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace gradops {
namespace tool {

template <class F>
double MedianMs(int reps, F&& f) {
  f();  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace tool
}  // namespace gradops
