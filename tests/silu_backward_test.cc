// SiLU backward against the float64 reference: broadcasting, dtype mixes,
// arrangements, empty tensors and non-finite inputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/dtype.h"
#include "cpu/silu.h"
#include "cpu/silu_table.h"
#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

Status RunSilu(const Tensor& dy, const Tensor& x, const Tensor& dx) {
  SiluBackwardArgs a;
  a.dy = dy.view(); a.x = x.view(); a.dx = dx.view();
  Plan plan;
  return PlanAndRun(PlanSiluBackward(a, &plan), plan);
}

// Runs `body` with g computed by division and by the refined reciprocal
// estimate (cpu/silu.h: SiluDivides), whichever this CPU would choose, and
// tells it which (true: dividing).
template <class Body>
void BothWaysOfDividing(Body body) {
  for (bool divide : {false, true}) {
    SCOPED_TRACE(divide ? "dividing" : "reciprocal estimate");
    const SiluDivisionScope scope(divide);
    body(divide);
  }
}

void CheckSilu(const Tensor& dy, const Tensor& x, const Tensor& dx) {
  const Status s = RunSilu(dy, x, dx);
  ASSERT_TRUE(s.ok()) << s.message();
  SiluBackwardArgs a;
  a.dy = dy.view(); a.x = x.view(); a.dx = dx.view();
  EXPECT_TRUE(Near(dx.Values(), ref::SiluBackward(a), dx.view().dtype, "dx"));
  EXPECT_TRUE(dx.OnlyViewWritten());
}

TEST(SiluBackward, SameShapesAllArrangements) {
  BothWaysOfDividing([](bool) {
    std::mt19937_64 rng(21);
    const Arrangement ins[5] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                Arrangement::kOffset, Arrangement::kBroadcast};
    const Arrangement outs[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                 Arrangement::kOffset};
    for (int i = 0; i < 150; ++i) {
      const std::vector<int64_t> shape = RandomShape(rng, 1 + i % 8, 20000);
      const DType dtype = kDTypes[rng() % 3];
      const Arrangement a_dy = ins[rng() % 5], a_x = ins[rng() % 5], a_dx = outs[rng() % 4];
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + ArrangementName(a_dy) + "/" + ArrangementName(a_x) + "/" +
                   ArrangementName(a_dx));
      Tensor dy(dtype, shape, a_dy), x(dtype, shape, a_x), dx(dtype, shape, a_dx);
      dy.FillRandom(rng, -3, 3);
      x.FillRandom(rng, -10, 10);
      CheckSilu(dy, x, dx);
      if (::testing::Test::HasFailure()) return;
    }
  });
}

TEST(SiluBackward, Broadcasting) {
  std::mt19937_64 rng(22);
  struct Shapes {
    std::vector<int64_t> dy, x, dx;
  };
  const Shapes cases[] = {
      {{4, 1, 6}, {1, 5, 6}, {4, 5, 6}}, {{6}, {3, 4, 6}, {3, 4, 6}}, {{3, 4, 6}, {1}, {3, 4, 6}},
      {{2, 1, 3, 1, 5}, {4, 1}, {2, 1, 3, 4, 5}}, {{1, 1, 1, 1, 1, 1, 1, 7}, {2, 1, 2, 1, 2, 1, 2, 1},
      {2, 1, 2, 1, 2, 1, 2, 7}}, {{1000, 1}, {1, 333}, {1000, 333}}, {{1}, {1}, {1}},
  };
  for (const Shapes& s : cases) {
    for (DType dtype : kDTypes) {
      Tensor dy(dtype, s.dy), x(dtype, s.x, Arrangement::kStrided), dx(dtype, s.dx);
      dy.FillRandom(rng, -3, 3);
      x.FillRandom(rng, -8, 8);
      CheckSilu(dy, x, dx);
    }
  }
}

// Inputs of different dtypes are accepted when dx is float32.
TEST(SiluBackward, MixedInputDTypesIntoFloat32) {
  std::mt19937_64 rng(23);
  for (DType a : kDTypes) {
    for (DType b : kDTypes) {
      Tensor dy(a, {7, 130}), x(b, {7, 130}), dx(DType::kFloat32, {7, 130});
      dy.FillRandom(rng, -3, 3);
      x.FillRandom(rng, -8, 8);
      CheckSilu(dy, x, dx);
    }
  }
}

TEST(SiluBackward, EmptyTensorsDoNothing) {
  for (DType dtype : kDTypes) {
    Tensor dy(dtype, {3, 0, 5}), x(dtype, {3, 0, 5}), dx(dtype, {3, 0, 5});
    SiluBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.dx = dx.view();
    Plan plan;
    ASSERT_TRUE(PlanSiluBackward(a, &plan).ok());
    EXPECT_EQ(plan.workspace_bytes(), 0u);
    ASSERT_TRUE(gradops::Run(plan, nullptr, 0).ok());
    EXPECT_TRUE(dx.Untouched());
    // Broadcasting a size-1 dim against 0 gives an empty result too.
    Tensor x1(dtype, {3, 1, 5});
    EXPECT_TRUE(RunSilu(dy, x1, dx).ok());
  }
}

// Contiguous bfloat16 goes through the paired conversions (two vectors at
// a time, in the target's lane order); a broadcast x takes the one-vector
// path. With every x equal the two must give the same bits.
TEST(SiluBackward, PairedAndSingleConversionsAgree) {
  std::mt19937_64 rng(24);
  for (float xv : {-7.25f, -0.5f, 0.0f, 0.75f, 3.0f}) {
    const int64_t n = 4099;
    Tensor dy(DType::kBFloat16, {n}), x(DType::kBFloat16, {n}), one(DType::kBFloat16, {1});
    Tensor paired(DType::kBFloat16, {n}), single(DType::kBFloat16, {n});
    dy.FillRandom(rng, -1000, 1000);
    x.FillValues(std::vector<float>(n, xv));
    one.FillValues({xv});
    TensorView broadcast = one.view();
    broadcast.shape[0] = n;
    broadcast.strides[0] = 0;
    SiluBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.dx = paired.view();
    Plan plan;
    ASSERT_TRUE(PlanAndRun(PlanSiluBackward(a, &plan), plan).ok());
    a.x = broadcast; a.dx = single.view();
    ASSERT_TRUE(PlanAndRun(PlanSiluBackward(a, &plan), plan).ok());
    EXPECT_EQ(paired.Bytes(), single.Bytes()) << "x = " << xv;
  }
}

// One 16-bit output unit in the last place at |v| (normal or subnormal).
double Ulp16(DType dtype, double v) {
  const int mantissa_bits = dtype == DType::kBFloat16 ? 7 : 10, min_exponent = dtype == DType::kBFloat16 ? -126 : -14;
  const int exponent = v == 0.0 ? min_exponent : std::max(min_exponent, std::ilogb(v));
  return std::ldexp(1.0, exponent - mantissa_bits);
}

// A 16-bit x's g(x) is one function on every path (cpu/silu_table.h),
// looked up or computed: contiguous tensors (the SIMD span, bfloat16 by
// pairs, and its tail) and strided ones (the generic path) give the same
// bits, each within one unit in the last place of the float64 reference.
TEST(SiluBackward, SixteenBitSameBitsOnEveryPath) {
  BothWaysOfDividing([](bool) {
    std::mt19937_64 rng(26);
    for (DType dtype : {DType::kBFloat16, DType::kFloat16}) {
      SCOPED_TRACE(DTypeName(dtype));
      const int64_t n = 4099;
      Tensor dy(dtype, {n}), x(dtype, {n}), dx(dtype, {n});
      dy.FillRandom(rng, -1000, 1000);
      x.FillRandom(rng, -20, 20);
      Tensor sdy(dtype, {n}, Arrangement::kStrided), sx(dtype, {n}, Arrangement::kStrided);
      Tensor sdx(dtype, {n}, Arrangement::kStrided);
      const std::vector<double> vdy = dy.Values(), vx = x.Values();
      sdy.FillValues(std::vector<float>(vdy.begin(), vdy.end()));
      sx.FillValues(std::vector<float>(vx.begin(), vx.end()));
      ASSERT_TRUE(RunSilu(dy, x, dx).ok());
      ASSERT_TRUE(RunSilu(sdy, sx, sdx).ok());
      const std::vector<double> got = dx.Values(), generic = sdx.Values();
      SiluBackwardArgs a;
      a.dy = dy.view(); a.x = x.view(); a.dx = dx.view();
      const std::vector<double> want = ref::SiluBackward(a);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(std::memcmp(&got[i], &generic[i], sizeof(double)), 0) << "element " << i << " x = " << vx[i];
        ASSERT_LE(std::fabs(got[i] - want[i]), Ulp16(dtype, want[i])) << "element " << i << " x = " << vx[i];
      }
    }
  });
}

// The SIMD span looks g up in the table on some CPUs and computes it on
// others (silu_table.h): both ways give the same bits, for every 16-bit x
// (NaN, infinities and subnormals among them), in the vector loops and the
// tail; and a broadcast x, whose g the span computes from its one value (or
// looks up, given the table), gives the same bits as the table's entry.
TEST(SiluBackward, LookedUpAndComputedSlopesSameBits) {
  BothWaysOfDividing([](bool divide) {
    std::mt19937_64 rng(27);
    for (DType dtype : {DType::kBFloat16, DType::kFloat16}) {
      SCOPED_TRACE(DTypeName(dtype));
      const int64_t n = (1 << 16) + 13;  // every pattern, then a tail
      std::vector<uint16_t> x(n), dy(n), looked_up(n, 0xFFFF), computed(n, 0x7FFF);
      for (int64_t i = 0; i < n; ++i) x[i] = static_cast<uint16_t>(i);
      Tensor random_dy(dtype, {n});
      random_dy.FillRandom(rng, -1000, 1000);
      const TensorView& v = random_dy.view();
      std::memcpy(dy.data(), static_cast<const uint16_t*>(v.data) + v.offset, n * sizeof(uint16_t));
      const float* table = cpu::SiluSlopeTable(dtype, divide);
      ASSERT_NE(table, nullptr);
      ASSERT_NE(table, cpu::SiluSlopeTable(dtype, !divide));
      cpu::SiluSpan(dtype, dy.data(), 1, x.data(), 1, looked_up.data(), n, table, divide, false);
      cpu::SiluSpan(dtype, dy.data(), 1, x.data(), 1, computed.data(), n, nullptr, divide, false);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(looked_up[i], computed[i]) << "x bits " << x[i];
      const int64_t m = 37;  // vectors and a tail
      for (uint16_t bits : {0x3C00, 0xBFA4, 0xC2F7, 0x7F80, 0xFF80, 0x0001, 0x8001, 0x7F81, 0xFFC1}) {
        const std::vector<uint16_t> copies(m, bits);
        cpu::SiluSpan(dtype, dy.data(), 1, copies.data(), 1, looked_up.data(), m, table, divide, false);
        cpu::SiluSpan(dtype, dy.data(), 1, &bits, 0, computed.data(), m, nullptr, divide, false);
        for (int64_t i = 0; i < m; ++i) ASSERT_EQ(looked_up[i], computed[i]) << "broadcast x bits " << bits;
        cpu::SiluSpan(dtype, dy.data(), 1, &bits, 0, computed.data(), m, table, divide, false);
        for (int64_t i = 0; i < m; ++i) ASSERT_EQ(looked_up[i], computed[i]) << "broadcast x looked up, bits " << bits;
      }
    }
  });
}

// The same as float32, where no rounding to 16 bits hides a last-bit
// difference: the table's g(x) for every 16-bit x, against g computed by the
// float32 span (dy = 1) with the same way of dividing. (A table built the
// other way, or a span ignoring `divide`, differs here on x86.)
TEST(SiluBackward, TablesHoldTheSpansSlopes) {
  BothWaysOfDividing([](bool divide) {
    for (DType dtype : {DType::kBFloat16, DType::kFloat16}) {
      SCOPED_TRACE(DTypeName(dtype));
      const int64_t n = int64_t{1} << 16;
      std::vector<float> x(n), ones(n, 1.0f), g(n, -7.0f);
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t bits = static_cast<uint16_t>(i);
        x[i] = dtype == DType::kBFloat16 ? BFloat16ToFloat(bits) : Float16ToFloat(bits);
      }
      cpu::SiluSpan(DType::kFloat32, ones.data(), 1, x.data(), 1, g.data(), n, nullptr, divide, false);
      const float* table = cpu::SiluSlopeTable(dtype, divide);
      for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) {
          ASSERT_TRUE(std::isnan(g[i]) && std::isnan(table[i])) << "x bits " << i;
          continue;
        }
        ASSERT_EQ(std::memcmp(&g[i], &table[i], sizeof(float)), 0)
            << "x bits " << i << ": computed " << g[i] << ", table " << table[i];
      }
    }
  });
}

// A plan keeps one way of dividing, and the table made that way.
TEST(SiluBackward, PlanKeepsItsWayOfDividing) {
  BothWaysOfDividing([](bool divide) {
    for (DType dtype : kDTypes) {
      Tensor dy(dtype, {100}), x(dtype, {100}), dx(dtype, {100});
      cpu::SiluProblem p;
      p.size[0] = p.numel = 100;
      for (int k = 0; k < 3; ++k) p.stride[k][0] = 1, p.dtype[k] = dtype;
      p.data[0] = dy.view().data, p.data[1] = x.view().data, p.data[2] = dx.view().data;
      const cpu::SiluSchedule s = cpu::ScheduleSilu(p, 1);
      EXPECT_EQ(s.divide, divide);
      EXPECT_EQ(s.table, cpu::SiluSlopeTable(dtype, divide)) << DTypeName(dtype);
    }
  });
}

// sigmoid(0) = 1/2, so at x = 0 every dtype's dx is dy / 2 exactly: the
// reciprocal may not be an estimate (AVX2's refined one gave 0.49999997).
// 37 values: the vector and the tail paths.
TEST(SiluBackward, ExactAtZero) {
  BothWaysOfDividing([](bool) {
    std::mt19937_64 rng(25);
    for (DType dtype : kDTypes) {
      const int64_t n = 37;
      Tensor dy(dtype, {n}), x(dtype, {n}), dx(dtype, {n}), half(dtype, {n});
      dy.FillRandom(rng, -1000, 1000);
      x.FillValues(std::vector<float>(n, 0.0f));
      std::vector<float> want;
      for (double v : dy.Values()) want.push_back(static_cast<float>(v * 0.5));  // exact: a power of two
      half.FillValues(want);
      ASSERT_TRUE(RunSilu(dy, x, dx).ok());
      EXPECT_EQ(dx.Bytes(), half.Bytes()) << DTypeName(dtype);
    }
  });
}

TEST(SiluBackward, NonFiniteAndExtremeInputs) {
  BothWaysOfDividing([](bool) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> xs = {nan, inf, -inf, 0.0f, -0.0f, 88.0f, -88.0f, 100.0f, -100.0f, 1e-30f, -1e-30f,
                                   20.0f, -20.0f, 3.0f, -3.0f, 0.5f, 1e4f, -1e4f, 65504.0f, -65504.0f};
    for (DType dtype : kDTypes) {
      const int64_t n = static_cast<int64_t>(xs.size());
      Tensor dy(dtype, {n}), x(dtype, {n}), dx(dtype, {n});
      std::vector<float> dys(xs.size(), 1.5f);
      dys[5] = inf;
      dys[6] = nan;
      dy.FillValues(dys);
      x.FillValues(xs);
      CheckSilu(dy, x, dx);
    }
  });
}

}  // namespace
}  // namespace testing
}  // namespace gradops
