// `gradops accuracy`: the largest error of every output against the float64
// reference, and the share of its elements other than the reference rounded
// once to its dtype, on the benchmark's own inputs (the same seeds), one JSON
// object per line, so reports can set gradops beside the peers on identical
// data.
#include <cstdio>

#include "commands.h"
#include "problems.h"

namespace gradops {
namespace tool {

int RunAccuracy(bool quick) {
  bool all_ok = true;
  for (const BenchCase& c : CpuBenchCases(quick)) {
    for (DType dtype : {DType::kFloat32, DType::kBFloat16, DType::kFloat16}) {
      const Problem problem(c.op, dtype, c.shape, ProblemSeed(c.op, dtype));
      Plan plan;
      Status s = problem.MakePlan(&plan);
      std::vector<unsigned char> workspace(plan.workspace_bytes());
      if (s.ok()) s = Run(plan, workspace.data(), workspace.size());
      if (!s.ok()) {
        std::fprintf(stderr, "accuracy: %s\n", s.message().c_str());
        return 1;
      }
      std::vector<std::pair<std::string, ref::Comparison>> errors;
      const bool ok = problem.Check(&errors);
      all_ok = all_ok && ok;
      std::printf("{\"system\": \"gradops\", \"op\": \"%s\", \"dtype\": \"%s\", \"shape\": [%lld%s%s], \"pass\": %s, "
                  "\"max_error\": {",
                  OpName(c.op), DTypeName(dtype), static_cast<long long>(c.shape[0]), c.shape.size() > 1 ? ", " : "",
                  c.shape.size() > 1 ? std::to_string(c.shape[1]).c_str() : "", ok ? "true" : "false");
      const auto print = [&](double ref::Comparison::*measure) {
        for (size_t i = 0; i < errors.size(); ++i) {
          std::printf("%s\"%s\": %.3e", i ? ", " : "", errors[i].first.c_str(), errors[i].second.*measure);
        }
      };
      print(&ref::Comparison::max_error);
      std::printf("}, \"misrounded\": {");
      print(&ref::Comparison::misrounded);
      std::printf("}}\n");
      std::fflush(stdout);
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace tool
}  // namespace gradops
