// `gradops bench`: the triad bandwidth ceiling (and a two-array read's
// bandwidth, for the operator that only reads), then every operator on the
// benchmark shapes, fp32/bf16/fp16, at 1 thread and at all threads, each as
// the median of several timed runs after a warm-up, each from memory (the
// caches emptied first: ColdMedianMs), with the triad measured again beside
// each row for its ratio. Prints a table, or JSON.
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

// The triad a = b + s * c over three arrays of n floats, well past the
// last-level cache: GB/s counts two reads and one write of n floats.
class Triad {
 public:
  Triad(int64_t n, HostPlacement placement)
      : n_(n), a_(Allocate(placement)), b_(Allocate(placement)), c_(Allocate(placement)) {
    if (!ok()) return;
    const int all = NumThreads();
    ParallelFor(all, all, [&](int64_t t, int) {  // first touch by the thread that uses the pages (all threads)
      const int64_t begin = n_ * t / all, end = n_ * (t + 1) / all;
      for (int64_t i = begin; i < end; ++i) {
        a_[i] = 0.5f;
        b_[i] = 1.0f + static_cast<float>(i & 7);
        c_[i] = 2.0f - static_cast<float>(i & 3);
      }
    });
  }

  bool ok() const { return a_ && b_ && c_; }

  // Median GB/s of `reps` runs with plain or non-temporal (nt) stores.
  double GBps(int threads, bool nt, int reps) {
    const double ms = MedianMs(reps, [&] {
      Slices(threads, [&](int64_t, int64_t begin, int64_t end) {
        cpu::Triad(a_.get() + begin, b_.get() + begin, c_.get() + begin, 3.0f, end - begin, nt);
      });
    });
    return 12.0 * static_cast<double>(n_) / (ms * 1e6);
  }

  // Median GB/s of `reps` reads of b and c alone (8 bytes per float index).
  double ReadGBps(int threads, int reps) {
    std::vector<float> sums(static_cast<size_t>(threads));
    const double ms = MedianMs(reps, [&] {
      Slices(threads, [&](int64_t t, int64_t begin, int64_t end) {
        sums[static_cast<size_t>(t)] = cpu::ReadTwo(b_.get() + begin, c_.get() + begin, end - begin);
      });
    });
    sink_ += sums[0];  // kept, so that the reads are
    return 8.0 * static_cast<double>(n_) / (ms * 1e6);
  }

 private:
  // f(t, begin, end) on each thread t of `threads`, over its slice of the
  // arrays, the slices starting on 64-element boundaries (whole lines, for
  // the streaming stores).
  template <class F>
  void Slices(int threads, F&& f) const {
    ParallelFor(threads, threads, [&](int64_t t, int) {
      const int64_t begin = (n_ * t / threads) & ~int64_t{63};
      const int64_t end = t + 1 == threads ? n_ : (n_ * (t + 1) / threads) & ~int64_t{63};
      f(t, begin, end);
    });
  }

  using Buffer = std::unique_ptr<float[], void (*)(void*)>;
  Buffer Allocate(HostPlacement placement) const {
    return Buffer(static_cast<float*>(AllocateHostMemory(static_cast<size_t>(n_) * sizeof(float), placement)),
                  FreeHostMemory);
  }

  int64_t n_;
  Buffer a_, b_, c_;
  volatile float sink_ = 0;
};

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

  // The ceiling: at the start, the faster of plain and non-temporal stores
  // for each thread count; beside each row, that faster kind again just
  // before and just after the row, the larger of the two (this machine's
  // bandwidth of that minute: on shared machines it moves by tens of
  // percent within minutes, docs/performance.md).
  Triad triad(triad_n, options.memory);
  if (!triad.ok()) {
    std::fprintf(stderr, "bench: no memory for the triad's arrays\n");
    return 1;
  }
  std::vector<bool> nt_faster;
  if (!options.json) {
    std::printf("memory: %s%s\n", options.memory.huge_pages ? "advised for large pages (--huge-pages)" : "ordinary pages",
                options.memory.staggered ? ", tensors staggered within their pages (--staggered)" : "");
  }
  for (int t : thread_counts) {
    EvictCaches();
    const double plain = triad.GBps(t, false, reps), nt = triad.GBps(t, true, reps);
    nt_faster.push_back(nt > plain);
    if (!options.json) {
      const double ceiling = std::max(plain, nt);
      const char* plural = t > 1 ? "s" : "";
      std::printf("triad ceiling at the start, %d thread%s: %.1f GB/s (%s stores); each row's beside it\n", t, plural,
                  ceiling, nt > plain ? "non-temporal" : "plain");
      // layer_norm_grad_beta only reads: where a plain loop reading two
      // arrays moves fewer bytes per second than the triad, that is about
      // its bound (its prefetches take it a few percent past the loop), though
      // its ratio is to the triad as every row's.
      const double read = triad.ReadGBps(t, reps);
      std::printf("two-array read at the start, %d thread%s: %.1f GB/s "
                  "(%.2f of the triad; layer_norm_grad_beta only reads)\n",
                  t, plural, read, read / ceiling);
    }
  }
  const int ceiling_reps = 3;

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
        const double before = triad.GBps(thread_counts[ti], nt_faster[ti], ceiling_reps);
        const double ms = ColdMedianMs(reps, [&] { Run(plan, workspace.data(), workspace.size()); });
        const double after = triad.GBps(thread_counts[ti], nt_faster[ti], ceiling_reps);
        BenchRow r{c.op, dtype, c.shape, thread_counts[ti], "cpu", ms, problem.bytes_moved() / (ms * 1e6),
                   std::max(before, after)};
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
