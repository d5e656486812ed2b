// The subcommands of the gradops program.
#pragma once

#include <string>

namespace gradops {
namespace tool {

bool RunCheck();

struct BenchOptions {
  bool quick = false;   // fewer shapes and runs: under a minute
  bool json = false;    // a JSON array instead of the table
  std::string filter;   // only operators whose name contains this
  std::string device = "cpu";  // or "cuda"
  bool huge_pages = false;  // CPU: every buffer (ceiling and operators) advised for large pages
};
int RunBench(const BenchOptions& options);
int RunBenchCuda(const BenchOptions& options);  // tools/bench_cuda.cc

// Errors against the float64 reference on the benchmark's inputs (JSON lines).
int RunAccuracy(bool quick);

}  // namespace tool
}  // namespace gradops
