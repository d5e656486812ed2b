// The subcommands of the gradops program.
#pragma once

#include <string>

#include "core/host_memory.h"

namespace gradops {
namespace tool {

bool RunCheck();

struct BenchOptions {
  bool quick = false;   // fewer shapes and runs: under a minute
  bool json = false;    // a JSON array instead of the table
  std::string filter;   // only operators whose name contains this
  std::string device = "cpu";  // or "cuda"
  // CPU: placement of every buffer, the ceiling's too (--huge-pages, --staggered).
  HostPlacement memory;
};
int RunBench(const BenchOptions& options);
int RunBenchCuda(const BenchOptions& options);  // tools/bench_cuda.cc

// Errors against the float64 reference on the benchmark's inputs (JSON lines).
int RunAccuracy(bool quick);

}  // namespace tool
}  // namespace gradops
