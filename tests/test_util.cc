#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "core/dtype.h"
#include "ref/compare.h"
#include "ref/reference.h"

namespace gradops {
namespace testing {

const char* ArrangementName(Arrangement a) {
  switch (a) {
    case Arrangement::kContiguous: return "contiguous";
    case Arrangement::kTransposed: return "transposed";
    case Arrangement::kStrided: return "strided";
    case Arrangement::kOffset: return "offset";
    case Arrangement::kBroadcast: return "broadcast";
  }
  return "?";
}

Tensor::Tensor(DType dtype, const std::vector<int64_t>& shape, Arrangement arrangement) {
  const int rank = static_cast<int>(shape.size());
  view_.dtype = dtype;
  view_.rank = rank;
  const int64_t step = arrangement == Arrangement::kStrided ? 2 : 1;
  view_.offset = arrangement == Arrangement::kStrided ? 3 : arrangement == Arrangement::kOffset ? 5 : 0;
  // Memory order: innermost first.
  std::vector<int> order(rank);
  for (int d = 0; d < rank; ++d) order[d] = arrangement == Arrangement::kTransposed ? d : rank - 1 - d;
  int64_t running = 1;
  for (int d : order) {
    view_.shape[d] = shape[d];
    view_.strides[d] = running * step;
    running *= std::max<int64_t>(shape[d], 1) * step;
  }
  if (arrangement == Arrangement::kBroadcast) {
    for (int d = 0; d < rank; ++d) {
      if (shape[d] > 1) {
        view_.strides[d] = 0;
        break;
      }
    }
  }
  storage_elements_ = view_.offset + running;
  const size_t elem = DTypeSize(dtype);
  bytes_.assign(2 * kGuardBytes + static_cast<size_t>(storage_elements_) * elem, kPoisonByte);
  view_.data = bytes_.data() + kGuardBytes;
}

void Tensor::FillRandom(std::mt19937_64& rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < storage_elements_; ++i) {
    float v = 0.0f;
    while (RoundTo(view_.dtype, v) == 0.0f) v = dist(rng);
    StoreFromFloat(view_.data, view_.dtype, i, v);
  }
}

void Tensor::FillValues(const std::vector<float>& logical) {
  const int64_t n = view_.numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = i, offset = view_.offset;
    for (int d = view_.rank - 1; d >= 0; --d) {
      offset += (linear % view_.shape[d]) * view_.strides[d];
      linear /= view_.shape[d];
    }
    StoreFromFloat(view_.data, view_.dtype, offset, logical[static_cast<size_t>(i)]);
  }
}

std::vector<double> Tensor::Values() const { return ref::Read(view_); }

::testing::AssertionResult Tensor::OnlyViewWritten() const {
  const size_t elem = DTypeSize(view_.dtype);
  std::vector<bool> in_view(static_cast<size_t>(storage_elements_), false);
  const int64_t n = view_.numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = i, offset = view_.offset;
    for (int d = view_.rank - 1; d >= 0; --d) {
      offset += (linear % view_.shape[d]) * view_.strides[d];
      linear /= view_.shape[d];
    }
    in_view[static_cast<size_t>(offset)] = true;
  }
  for (size_t b = 0; b < bytes_.size(); ++b) {
    const bool guard = b < kGuardBytes || b >= kGuardBytes + static_cast<size_t>(storage_elements_) * elem;
    if (!guard && in_view[(b - kGuardBytes) / elem]) continue;
    if (bytes_[b] != kPoisonByte) {
      return ::testing::AssertionFailure() << "byte " << b << (guard ? " (guard)" : " (outside the view)")
                                           << " was written";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult Tensor::Untouched() const {
  for (size_t b = 0; b < bytes_.size(); ++b) {
    if (bytes_[b] != kPoisonByte) return ::testing::AssertionFailure() << "byte " << b << " was written";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult Near(const std::vector<double>& got, const std::vector<double>& want, DType dtype,
                                const std::string& what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << what << ": " << got.size() << " values, expected " << want.size();
  }
  const ref::Comparison c = ref::Compare(got, want, dtype);
  if (c.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << "[" << c.worst << "] = " << got[c.worst] << ", reference "
                                       << want[c.worst] << " (dtype " << DTypeName(dtype) << ", scale " << c.scale
                                       << ")";
}

std::vector<int64_t> RandomShape(std::mt19937_64& rng, int rank, int64_t max_elements) {
  std::vector<int64_t> shape(rank, 1);
  // Grow random dims while the product stays within bounds.
  std::uniform_int_distribution<int> pick(0, rank - 1);
  std::uniform_int_distribution<int> grow(2, 5);
  for (int tries = 0; tries < 64; ++tries) {
    const int d = pick(rng);
    const int64_t factor = grow(rng);
    if (Numel(shape) * factor > max_elements) continue;
    shape[d] *= factor;
  }
  return shape;
}

Status PlanAndRun(const Status& planned, const Plan& plan) {
  if (!planned.ok()) return planned;
  // All bits set (NaN as float32): a kernel that reads a workspace value it
  // did not write first shows in its outputs.
  std::vector<unsigned char> workspace(plan.workspace_bytes() + 1, 0xFF);
  return Run(plan, workspace.data(), plan.workspace_bytes());
}

}  // namespace testing
}  // namespace gradops
