// Outputs of 16 MiB and more are stored non-temporally, with plain stores up
// to the first element aligned for them. Whatever the alignment of dx, the
// bits must be those of plainly stored runs over its first and last rows or
// elements, and nothing outside dx may be written.
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "core/dtype.h"
#include "gradops/ops.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

constexpr size_t kStreamBytes = size_t{16} << 20;

// Elements in 64-byte aligned storage, starting `shift` elements past a line,
// with poisoned elements before and after.
class Shifted {
 public:
  Shifted(DType dtype, int64_t elements, int64_t shift)
      : dtype_(dtype), shift_(shift), total_(elements + shift + 64),
        bytes_(static_cast<unsigned char*>(std::aligned_alloc(64, (Bytes(total_) + 63) / 64 * 64))) {
    std::memset(bytes_.get(), kPoisonByte, Bytes(total_));
  }
  void* data() const { return bytes_.get() + Bytes(shift_); }
  void Fill(std::mt19937_64& rng, int64_t elements) {
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    for (int64_t i = 0; i < elements; ++i) StoreFromFloat(data(), dtype_, i, u(rng));
  }
  // True when the poison before and after the first `elements` is intact.
  bool PoisonIntact(int64_t elements) const {
    for (size_t b = 0; b < Bytes(total_); ++b) {
      const bool inside = b >= Bytes(shift_) && b < Bytes(shift_ + elements);
      if (!inside && bytes_.get()[b] != kPoisonByte) return false;
    }
    return true;
  }

 private:
  size_t Bytes(int64_t n) const { return static_cast<size_t>(n) * DTypeSize(dtype_); }
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  DType dtype_;
  int64_t shift_, total_;
  std::unique_ptr<unsigned char, Free> bytes_;
};

TEST(Streaming, LayerNormBackwardSameBitsAsPlainStores) {
  std::mt19937_64 rng(71);
  for (DType dtype : {DType::kFloat32, DType::kBFloat16, DType::kFloat16}) {
    // N = 4100: the rows' starts disagree in alignment, so each row decides alone.
    for (int64_t N : {int64_t{4096}, int64_t{4100}}) {
      const int64_t M = static_cast<int64_t>(kStreamBytes / DTypeSize(dtype)) / N + 1, rows = 24;
      for (int64_t shift : {0, 1, 5, 15}) {
        SCOPED_TRACE(std::string(DTypeName(dtype)) + " N=" + std::to_string(N) + " shift=" + std::to_string(shift));
        Shifted dy(dtype, M * N, 3), x(dtype, M * N, 0), dx(dtype, M * N, shift), plain(dtype, rows * N, 0);
        dy.Fill(rng, M * N);
        x.Fill(rng, M * N);
        std::vector<float> mean(M), rstd(M), gamma(N), dgamma(N), dbeta(N), dgamma2(N), dbeta2(N);
        std::uniform_real_distribution<float> u(0.5f, 2.0f);
        for (auto* v : {&mean, &rstd, &gamma}) {
          for (float& e : *v) e = u(rng);
        }
        LayerNormBackwardArgs a;
        a.dy = Contiguous(dy.data(), dtype, {M, N});
        a.x = Contiguous(x.data(), dtype, {M, N});
        a.mean = Contiguous(mean.data(), DType::kFloat32, {M, 1});
        a.rstd = Contiguous(rstd.data(), DType::kFloat32, {M, 1});
        const TensorView g = Contiguous(gamma.data(), DType::kFloat32, {N});
        a.gamma = &g;
        a.dx = Contiguous(dx.data(), dtype, {M, N});
        a.dgamma = Contiguous(dgamma.data(), DType::kFloat32, {N});
        a.dbeta = Contiguous(dbeta.data(), DType::kFloat32, {N});
        Plan plan;
        ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
        EXPECT_TRUE(dx.PoisonIntact(M * N));
        // The first and the last rows again, far below the threshold: stored plainly.
        for (int64_t first : {int64_t{0}, M - rows}) {
          LayerNormBackwardArgs part = a;
          for (TensorView* v : {&part.dy, &part.x, &part.mean, &part.rstd}) {
            v->shape[0] = rows;
            v->offset += first * v->strides[0];
          }
          part.dx = Contiguous(plain.data(), dtype, {rows, N});
          part.dgamma = Contiguous(dgamma2.data(), DType::kFloat32, {N});
          part.dbeta = Contiguous(dbeta2.data(), DType::kFloat32, {N});
          ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(part, &plan), plan).ok());
          const size_t row_bytes = static_cast<size_t>(N) * DTypeSize(dtype);
          EXPECT_EQ(std::memcmp(static_cast<char*>(dx.data()) + first * row_bytes, plain.data(), rows * row_bytes), 0)
              << "rows from " << first;
        }
      }
    }
  }
}

TEST(Streaming, SiluBackwardSameBitsAsPlainStores) {
  std::mt19937_64 rng(72);
  for (DType dtype : {DType::kFloat32, DType::kBFloat16, DType::kFloat16}) {
    const int64_t n = static_cast<int64_t>(kStreamBytes / DTypeSize(dtype)) + 77, part_n = 100003;
    for (int64_t shift : {0, 1, 5, 15}) {
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " shift=" + std::to_string(shift));
      Shifted dy(dtype, n, 0), x(dtype, n, 7), dx(dtype, n, shift), plain(dtype, part_n, 0);
      dy.Fill(rng, n);
      x.Fill(rng, n);
      SiluBackwardArgs s;
      s.dy = Contiguous(dy.data(), dtype, {n});
      s.x = Contiguous(x.data(), dtype, {n});
      s.dx = Contiguous(dx.data(), dtype, {n});
      Plan plan;
      ASSERT_TRUE(PlanAndRun(PlanSiluBackward(s, &plan), plan).ok());
      EXPECT_TRUE(dx.PoisonIntact(n));
      // The first and the last elements again, far below the threshold: stored plainly.
      for (int64_t first : {int64_t{0}, n - part_n}) {
        SiluBackwardArgs part = s;
        for (TensorView* v : {&part.dy, &part.x}) {
          v->shape[0] = part_n;
          v->offset += first;
        }
        part.dx = Contiguous(plain.data(), dtype, {part_n});
        ASSERT_TRUE(PlanAndRun(PlanSiluBackward(part, &plan), plan).ok());
        const size_t elem = DTypeSize(dtype);
        EXPECT_EQ(std::memcmp(static_cast<char*>(dx.data()) + first * elem, plain.data(), part_n * elem), 0)
            << "elements from " << first;
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
