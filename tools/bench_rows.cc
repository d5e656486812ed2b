#include "bench_rows.h"

#include <cstdio>
#include <string>

namespace gradops {
namespace tool {

void PrintRowHeader() {
  std::printf("%-22s %-9s %-11s %7s %10s %8s %8s %7s\n", "operator", "dtype", "shape", "threads", "ms", "GB/s",
              "ceiling", "ratio");
}

void PrintRow(const BenchRow& r) {
  std::printf("%-22s %-9s %-11s %7d %10.3f %8.1f %8.1f %7.2f\n", OpName(r.op), DTypeName(r.dtype),
              ShapeString(r.shape).c_str(), r.threads, r.ms, r.gbps, r.ceiling_gbps, r.gbps / r.ceiling_gbps);
  std::fflush(stdout);
}

void PrintJson(const std::vector<BenchRow>& rows) {
  std::printf("[\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    std::string shape;
    for (size_t d = 0; d < r.shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(r.shape[d]);
    std::printf("  {\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": [%s], \"threads\": %d, \"device\": \"%s\", "
                "\"ms\": %.4f, \"gbps\": %.2f, \"ceiling_gbps\": %.2f, \"ratio\": %.4f}%s\n",
                OpName(r.op), DTypeName(r.dtype), shape.c_str(), r.threads, r.device, r.ms, r.gbps, r.ceiling_gbps,
                r.gbps / r.ceiling_gbps, i + 1 < rows.size() ? "," : "");
  }
  std::printf("]\n");
}

}  // namespace tool
}  // namespace gradops
