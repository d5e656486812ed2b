// Ready-made problems for the gradops program: contiguous tensors of random
// data (never zero) for each operator, on a given shape and dtype.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/host_memory.h"
#include "gradops/ops.h"
#include "ref/compare.h"

namespace gradops {
namespace tool {

// An owned contiguous tensor.
struct Buffer {
  // Whole 64-byte lines plus one, 64-byte aligned as PyTorch's CPU allocator
  // aligns tensors, all bits set until filled; placed as `placement` asks
  // (AllocateHostMemory; staggered, as aclrtMalloc places tensors).
  std::unique_ptr<void, void (*)(void*)> storage;
  size_t bytes = 0;
  TensorView view;
  Buffer(DType dtype, std::vector<int64_t> shape, HostPlacement placement);
  // Element i = HashUniform(stream, i, lo, hi) rounded to the dtype, or hi / 2
  // where that rounds to zero: reproducible bit for bit by any program
  // (bench/peers/torch_cpu.py draws the same inputs).
  void Fill(uint64_t stream, float lo, float hi);
};

// lo + (hi - lo) * u in float32, u = (splitmix64(stream * 2^32 + i) >> 40) * 2^-24.
float HashUniform(uint64_t stream, uint64_t i, float lo, float hi);

enum class Op { kLayerNormBackward, kRmsNormBackward, kLayerNormGrad, kLayerNormGradBeta, kSiluBackward };
const char* OpName(Op op);

// One operator on one shape: the inputs, the outputs and its arguments. For
// the norm operators the shape is [M, N]; SiLU takes a flat [n].
class Problem {
 public:
  // `placement`: of every tensor (`gradops bench --huge-pages`, `--staggered`),
  // allocated in the order dy, x, mean, rstd, gamma, then the outputs.
  Problem(Op op, DType dtype, const std::vector<int64_t>& shape, uint64_t seed, HostPlacement placement = {});
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  Op op() const { return op_; }
  Status MakePlan(Plan* plan) const;
  // Bytes an ideal kernel moves: dy, x (or res_for_gamma) read, dx (and
  // res_for_gamma) written, plus the per-row and per-column vectors.
  double bytes_moved() const;
  // Each output against the float64 reference (ref::Compare), by name; false
  // on failure.
  bool Check(std::vector<std::pair<std::string, ref::Comparison>>* errors) const;
  // Points every argument at move(buffer, bytes) instead of the buffer
  // (a device copy, for `gradops bench --device cuda`); Check then no longer
  // applies.
  void Relocate(void* (*move)(const void* data, size_t bytes));
  // The LayerNorm backward arguments (inputs and outputs), for peers.
  const LayerNormBackwardArgs& layer_norm_args() const { return ln_; }

 private:
  Op op_;
  DType dtype_;
  int64_t M_ = 0, N_ = 0;
  std::vector<Buffer> buffers_;  // dy, x, mean/var, rstd, gamma, dx, res, dgamma, dbeta
  LayerNormBackwardArgs ln_;
  RmsNormBackwardArgs rms_;
  LayerNormGradArgs grad_;
  LayerNormGradBetaArgs beta_;
  SiluBackwardArgs silu_;
};

std::string ShapeString(const std::vector<int64_t>& shape);

// The seed of the benchmark's problem for an operator and dtype: the same
// inputs in `gradops bench`, `gradops accuracy` and the peers' scripts.
inline uint64_t ProblemSeed(Op op, DType dtype) {
  return 1 + 10 * static_cast<uint64_t>(op) + static_cast<uint64_t>(dtype);
}

// The benchmark's cases: the four norm operators on each of `norm_shapes`,
// then SiLU on each of `silu_shapes`.
struct BenchCase {
  Op op;
  std::vector<int64_t> shape;
};
std::vector<BenchCase> BenchCases(const std::vector<std::vector<int64_t>>& norm_shapes,
                                  const std::vector<std::vector<int64_t>>& silu_shapes);

// The CPU benchmark's: 16384x1024, 4096x4096, 1024x16384 and 256x65536
// (quick: the first and third); SiLU on 2^26 elements (quick: 2^24).
std::vector<BenchCase> CpuBenchCases(bool quick);

}  // namespace tool
}  // namespace gradops
