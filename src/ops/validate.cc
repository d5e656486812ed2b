#include "ops/validate.h"

#include <limits>

namespace gradops {

Status InvalidArgument(const std::string& message) {
  return Status(StatusCode::kInvalidArgument, message);
}
Status NullPointer(const std::string& message) { return Status(StatusCode::kNullPointer, message); }

std::string ShapeString(const TensorView& view) {
  std::string s = "[";
  for (int d = 0; d < view.rank && d < kMaxRank; ++d) {
    if (d) s += ", ";
    s += std::to_string(view.shape[d]);
  }
  return s + "]";
}

Status CheckView(const char* name, const TensorView& view) {
  const std::string n = name;
  if (view.dtype != DType::kFloat32 && view.dtype != DType::kFloat16 &&
      view.dtype != DType::kBFloat16) {
    return InvalidArgument(n + ": dtype " + std::to_string(static_cast<int>(view.dtype)) +
                           " is not float32, float16 or bfloat16");
  }
  if (view.rank < 1 || view.rank > kMaxRank) {
    return InvalidArgument(n + ": rank " + std::to_string(view.rank) + " is outside [1, 8]");
  }
  if (view.offset < 0) return InvalidArgument(n + ": offset " + std::to_string(view.offset) + " is negative");
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t numel = 1;
  bool empty = false;
  for (int d = 0; d < view.rank; ++d) {
    if (view.shape[d] < 0) return InvalidArgument(n + ": shape " + ShapeString(view) + " has a negative size");
    if (view.strides[d] < 0) {
      return InvalidArgument(n + ": stride " + std::to_string(view.strides[d]) + " of dim " +
                             std::to_string(d) + " is negative");
    }
    if (view.shape[d] == 0) empty = true;
  }
  if (empty) return Status::Ok();
  // Every element index and every offset must fit in int64.
  int64_t reach = view.offset;
  for (int d = 0; d < view.rank; ++d) {
    if (numel > kMax / view.shape[d]) return InvalidArgument(n + ": " + ShapeString(view) + " has more than 2^63 elements");
    numel *= view.shape[d];
    const int64_t extent = view.shape[d] - 1;
    if (view.strides[d] != 0 && extent > (kMax - reach) / view.strides[d]) {
      return InvalidArgument(n + ": element offsets overflow 64 bits");
    }
    reach += extent * view.strides[d];
  }
  if (reach > kMax / 4) return InvalidArgument(n + ": element offsets overflow 64-bit byte addresses");
  if (view.data == nullptr) return NullPointer(n + ": data is null");
  return Status::Ok();
}

Status CheckOutputView(const char* name, const TensorView& view) {
  Status s = CheckView(name, view);
  if (!s.ok()) return s;
  if (view.numel() <= 1) return s;
  for (int d = 0; d < view.rank; ++d) {
    if (view.shape[d] > 1 && view.strides[d] == 0) {
      return InvalidArgument(std::string(name) + ": an output may not have stride 0 (dim " +
                             std::to_string(d) + " of size " + std::to_string(view.shape[d]) +
                             " would write one element several times)");
    }
  }
  return s;
}

Status CheckSameShape(const char* name, const TensorView& view, const char* other_name,
                      const TensorView& other) {
  bool same = view.rank == other.rank;
  for (int d = 0; same && d < view.rank; ++d) same = view.shape[d] == other.shape[d];
  if (same) return Status::Ok();
  return InvalidArgument(std::string(name) + ": shape " + ShapeString(view) + " differs from " +
                         other_name + " " + ShapeString(other));
}

Status CheckSameDType(const char* name, const TensorView& view, const char* other_name,
                      const TensorView& other) {
  if (view.dtype == other.dtype) return Status::Ok();
  return InvalidArgument(std::string(name) + ": dtype " + DTypeName(view.dtype) + " differs from " +
                         other_name + " (" + DTypeName(other.dtype) + ")");
}

Status CheckGammaDType(const TensorView& gamma, const TensorView& x) {
  if (gamma.dtype == x.dtype || gamma.dtype == DType::kFloat32) return Status::Ok();
  return InvalidArgument(std::string("gamma: dtype ") + DTypeName(gamma.dtype) +
                         " must be float32 or the dtype of x (" + DTypeName(x.dtype) + ")");
}

Status CheckNumel(const char* name, const TensorView& view, int64_t count, const char* what) {
  if (view.numel() == count) return Status::Ok();
  return InvalidArgument(std::string(name) + ": shape " + ShapeString(view) + " holds " +
                         std::to_string(view.numel()) + " elements, expected " + std::to_string(count) +
                         " (" + what + ")");
}

Status CheckTrailingShape(const char* name, const TensorView& view, const char* of_name,
                          const TensorView& of, int first) {
  bool same = first >= 0 && view.rank == of.rank - first;
  for (int d = 0; same && d < view.rank; ++d) same = view.shape[d] == of.shape[first + d];
  if (same) return Status::Ok();
  return InvalidArgument(std::string(name) + ": shape " + ShapeString(view) +
                         " must equal the trailing dims of " + of_name + " " + ShapeString(of));
}

}  // namespace gradops
