// The rows of `gradops bench`, CPU or CUDA: the table and the JSON array
// (keys op, dtype, shape, threads, device, ms, gbps, ceiling_gbps, ratio).
#pragma once

#include <cstdint>
#include <vector>

#include "problems.h"

namespace gradops {
namespace tool {

struct BenchRow {
  Op op;
  DType dtype;
  std::vector<int64_t> shape;
  int threads = 1;
  const char* device = "cpu";
  double ms = 0, gbps = 0, ceiling_gbps = 0;
};

void PrintRowHeader();
void PrintRow(const BenchRow& row);
void PrintJson(const std::vector<BenchRow>& rows);

}  // namespace tool
}  // namespace gradops
