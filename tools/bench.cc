// `gradops bench`: the triad bandwidth ceiling, then every operator on the
// benchmark shapes, fp32/bf16/fp16, at 1 thread and at all threads, each as
// the median of several timed runs after a warm-up, each from memory (the
// caches emptied first: ColdMedianMs). Prints a table, or JSON.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "core/host_memory.h"
#include "core/parallel.h"
#include "cpu/triad.h"
#include "bench_rows.h"
#include "problems.h"
#include "timing.h"

namespace gradops {
namespace tool {
namespace {

using Clock = std::chrono::steady_clock;

// Best of a plain and a non-temporal-store triad, GB/s (two reads and one
// write of n floats), over arrays well past the last-level cache.
double TriadCeiling(int threads, int64_t n, int reps, HostPlacement placement) {
  const auto array = [&] {
    return std::unique_ptr<float[], void (*)(void*)>(
        static_cast<float*>(AllocateHostMemory(static_cast<size_t>(n) * sizeof(float), placement)), FreeHostMemory);
  };
  const auto a = array(), b = array(), c = array();
  if (!a || !b || !c) return 0;
  ParallelFor(threads, threads, [&](int64_t t, int) {  // first touch by the thread that uses the pages
    const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
    for (int64_t i = begin; i < end; ++i) {
      a[i] = 0.5f;
      b[i] = 1.0f + static_cast<float>(i & 7);
      c[i] = 2.0f - static_cast<float>(i & 3);
    }
  });
  double best = 0;
  for (bool nt : {false, true}) {
    const double ms = ColdMedianMs(reps, [&] {
      ParallelFor(threads, threads, [&](int64_t t, int) {
        const int64_t begin = (n * t / threads) & ~int64_t{63}, end = t + 1 == threads ? n : (n * (t + 1) / threads) & ~int64_t{63};
        cpu::Triad(a.get() + begin, b.get() + begin, c.get() + begin, 3.0f, end - begin, nt);
      });
    });
    best = std::max(best, 12.0 * static_cast<double>(n) / (ms * 1e6));
  }
  return best;
}

// Planning plus running a 1x1024 LayerNorm backward, in microseconds.
double PlanCostUs() {
  Problem p(Op::kLayerNormBackward, DType::kFloat32, {1, 1024}, 99);
  std::vector<unsigned char> workspace(1 << 20);
  const double ms = MedianMs(200, [&] {
    Plan plan;
    if (p.MakePlan(&plan).ok()) Run(plan, workspace.data(), workspace.size());
  });
  return ms * 1000.0;
}

}  // namespace

int RunBench(const BenchOptions& options) {
  const int all = NumThreads();
  std::vector<int> thread_counts = {1};
  if (all > 1) thread_counts.push_back(all);
  if (options.quick) thread_counts = {all};
  const int reps = options.quick ? 3 : 7;
  const int64_t triad_n = options.quick ? (int64_t{1} << 24) : (int64_t{1} << 26);

  std::vector<double> ceilings;
  for (int t : thread_counts) {
    ceilings.push_back(TriadCeiling(t, triad_n, reps, options.memory));
    if (ceilings.back() <= 0) {
      std::fprintf(stderr, "bench: no memory for the triad's arrays\n");
      return 1;
    }
  }
  if (!options.json) {
    std::printf("memory: %s%s\n", options.memory.huge_pages ? "advised for large pages (--huge-pages)" : "ordinary pages",
                options.memory.staggered ? ", tensors staggered within their pages (--staggered)" : "");
    for (size_t i = 0; i < thread_counts.size(); ++i) {
      std::printf("triad ceiling, %d thread%s: %.1f GB/s\n", thread_counts[i], thread_counts[i] > 1 ? "s" : "",
                  ceilings[i]);
    }
  }

  std::vector<DType> dtypes = {DType::kFloat32, DType::kBFloat16, DType::kFloat16};
  if (options.quick) dtypes = {DType::kFloat32, DType::kBFloat16};

  std::vector<BenchRow> rows;
  if (!options.json) PrintRowHeader();
  for (const BenchCase& c : CpuBenchCases(options.quick)) {
    if (!options.filter.empty() && std::string(OpName(c.op)).find(options.filter) == std::string::npos) continue;
    for (DType dtype : dtypes) {
      const Problem problem(c.op, dtype, c.shape, ProblemSeed(c.op, dtype), options.memory);
      for (size_t ti = 0; ti < thread_counts.size(); ++ti) {
        SetNumThreads(thread_counts[ti]);
        Plan plan;
        const Status s = problem.MakePlan(&plan);
        if (!s.ok()) {
          std::fprintf(stderr, "bench: %s\n", s.message().c_str());
          return 1;
        }
        std::vector<unsigned char> workspace(plan.workspace_bytes());
        const double ms = ColdMedianMs(reps, [&] { Run(plan, workspace.data(), workspace.size()); });
        BenchRow r{c.op, dtype, c.shape, thread_counts[ti], "cpu", ms, problem.bytes_moved() / (ms * 1e6),
                   ceilings[ti]};
        rows.push_back(r);
        if (!options.json) PrintRow(r);
      }
    }
  }
  SetNumThreads(0);
  if (options.json) {
    PrintJson(rows);
  } else {
    std::printf("plan + run of a 1x1024 layer_norm_backward: %.1f us\n", PlanCostUs());
  }
  return 0;
}

}  // namespace tool
}  // namespace gradops
