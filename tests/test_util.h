// Test support: tensors in poisoned storage with guard bytes, laid out in
// several ways (contiguous, transposed, strided, offset, broadcast), random
// data that is never zero, and comparisons against the float64 reference.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cpu/convert.h"
#include "cpu/silu.h"
#include "gradops/ops.h"
#include "ref/tolerance.h"

namespace gradops {
namespace testing {

enum class Arrangement {
  kContiguous,
  kTransposed,  // dims stored in reverse order
  kStrided,     // every dim stepped by 2, offset 3
  kOffset,      // contiguous, 5 elements into the storage
  kBroadcast,   // the first dim of size > 1 has stride 0 (inputs only)
};
const char* ArrangementName(Arrangement a);

constexpr unsigned char kPoisonByte = 0xFF;  // NaN in every dtype
constexpr size_t kGuardBytes = 64;

// A tensor: its storage (guard bytes, then elements, then guard bytes, all
// poisoned at first) and a view into it.
class Tensor {
 public:
  Tensor(DType dtype, const std::vector<int64_t>& shape, Arrangement arrangement = Arrangement::kContiguous);
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  const TensorView& view() const { return view_; }
  TensorView* mutable_view() { return &view_; }
  int64_t storage_elements() const { return storage_elements_; }

  // Fills every storage element (in the view or not) with uniform values in
  // [lo, hi], rounded to the dtype, none of them zero.
  void FillRandom(std::mt19937_64& rng, float lo, float hi);
  void FillValues(const std::vector<float>& logical);  // row-major logical values
  // The view's elements, row-major, as double.
  std::vector<double> Values() const;
  // True when the guard bytes and every storage element outside the view
  // still hold the poison (nothing was written outside the view).
  ::testing::AssertionResult OnlyViewWritten() const;
  // True when nothing at all was written.
  ::testing::AssertionResult Untouched() const;
  std::vector<unsigned char> Bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
  int64_t storage_elements_ = 0;
  TensorView view_;
};

// got vs want with ref::ToleranceFor(dtype); NaN matches NaN, Inf matches Inf of
// the same sign.
::testing::AssertionResult Near(const std::vector<double>& got, const std::vector<double>& want, DType dtype,
                                const std::string& what);

// Random shapes: rank dims whose product is at most max_elements.
std::vector<int64_t> RandomShape(std::mt19937_64& rng, int rank, int64_t max_elements);

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// Plans and runs with a fresh workspace of all bits set; the plan's status if it failed.
Status PlanAndRun(const Status& planned, const Plan& plan);

// Allows or forbids the CPU's bfloat16 conversion instructions
// (cpu::SetBFloat16Instructions) for its lifetime; allowed again after.
struct BFloat16InstructionsScope {
  explicit BFloat16InstructionsScope(bool allowed) { cpu::SetBFloat16Instructions(allowed); }
  ~BFloat16InstructionsScope() { cpu::SetBFloat16Instructions(true); }
  BFloat16InstructionsScope(const BFloat16InstructionsScope&) = delete;
  BFloat16InstructionsScope& operator=(const BFloat16InstructionsScope&) = delete;
};

// SiLU's g computed with or without division (cpu::SetSiluDivides) for its
// lifetime, as before after.
struct SiluDivisionScope {
  explicit SiluDivisionScope(bool divide) : before(cpu::SiluDivides()) { cpu::SetSiluDivides(divide); }
  ~SiluDivisionScope() { cpu::SetSiluDivides(before); }
  SiluDivisionScope(const SiluDivisionScope&) = delete;
  SiluDivisionScope& operator=(const SiluDivisionScope&) = delete;
  const bool before;
};

}  // namespace testing
}  // namespace gradops
