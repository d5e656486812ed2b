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
};
int RunBench(const BenchOptions& options);

}  // namespace tool
}  // namespace gradops
