// One LayerNorm backward test case (shape, normalized rank, dtypes, mask,
// arrangements), its tensors, and the check of a run against the float64
// reference: shared by the CPU suite and the device suite, which differ only
// in where they run the plan.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace gradops {
namespace testing {

struct LnCase {
  std::vector<int64_t> shape;
  int normalized_rank = 1;
  DType x_dtype = DType::kFloat32, stat_dtype = DType::kFloat32, out_dtype = DType::kFloat32;
  bool has_gamma = true;
  DType gamma_dtype = DType::kFloat32;
  bool mask[3] = {true, true, true};
  Arrangement in_arr = Arrangement::kContiguous, out_arr = Arrangement::kContiguous;
  uint64_t seed = 1;
};

std::string Describe(const LnCase& c);

// The case's tensors: inputs filled with random data, outputs poisoned.
struct LnTensors {
  explicit LnTensors(const LnCase& c);
  Tensor dy, x, mean, rstd, gamma, dx, dgamma, dbeta;
  LayerNormBackwardArgs args;  // views of the tensors above
};

// Computes a case into its tensors' outputs (on the CPU, or on a device and
// copied back); the returned result says whether it ran.
using LnRunner = std::function<::testing::AssertionResult(LnTensors& tensors)>;

// The CPU runner: plans and runs on the tensors where they are.
::testing::AssertionResult RunOnCpu(LnTensors& tensors);

// Makes the tensors, runs them, and checks every requested output against
// the reference, the untouched outputs, and the bytes outside each view.
void CheckLayerNormCase(const LnCase& c, const LnRunner& run);

// A random case of the given rank, with the output mask taken from `mask_bits`.
LnCase RandomLnCase(std::mt19937_64& rng, int rank, int mask_bits);

}  // namespace testing
}  // namespace gradops
