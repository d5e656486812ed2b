// The norm operators on device memory against the float64 reference: the
// CPU suite's cases (random shapes of rank 1-8, every normalized rank,
// dtype mixes, output masks, absent gamma, every arrangement), rows of every
// path (groups within a warp, a CTA, a cluster, the general kernel up to
// N = 262144), non-finite data, no rows, mixed host/device memory, and
// bitwise determinism across runs and grid sizes.
#include <cstring>
#include <limits>
#include <memory>

#include "cuda/cuda_backend.h"
#include "device_tensor.h"
#include "layer_norm_case.h"
#include "ops/norm_plan.h"
#include "ref/reference.h"

namespace gradops {
namespace testing {
namespace {

// Runs a case on the device (on `stream`; null: the legacy default stream):
// every tensor mirrored into device memory, the outputs copied back for the
// shared check.
void RunLnCase(const LnCase& c, void* stream = nullptr) {
  CheckLayerNormCase(c, [stream](LnTensors& t) {
    DeviceTensor d_dy(t.dy), d_x(t.x), d_mean(t.mean), d_rstd(t.rstd), d_gamma(t.gamma), d_dx(t.dx),
        d_dg(t.dgamma), d_db(t.dbeta);
    LayerNormBackwardArgs args = t.args;
    args.dy = d_dy.view(); args.x = d_x.view(); args.mean = d_mean.view(); args.rstd = d_rstd.view();
    args.gamma = t.args.gamma ? d_gamma.pointer() : nullptr;
    args.dx = d_dx.view(); args.dgamma = d_dg.view(); args.dbeta = d_db.view();
    Plan plan;
    const ::testing::AssertionResult ran = RunOnDevice(PlanLayerNormBackward(args, &plan), plan, stream);
    for (DeviceTensor* d : {&d_dx, &d_dg, &d_db}) d->CopyBack();
    return ran;
  });
}

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
const Arrangement kInputs[5] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                Arrangement::kOffset, Arrangement::kBroadcast};
const Arrangement kOutputs[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                 Arrangement::kOffset};

using NormGpu = GpuTest;

TEST_F(NormGpu, LayerNormBackwardRandomCases) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 400; ++i) {
    RunLnCase(RandomLnCase(rng, 1 + i % 8, i / 8));
    if (HasFailure()) return;
  }
}

// Run on a stream of the caller's: the kernels queue there, results as on
// the default stream.
TEST_F(NormGpu, LayerNormBackwardOnACallersStream) {
  void* stream = cuda::CreateStream();
  ASSERT_NE(stream, nullptr);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) {
    RunLnCase(RandomLnCase(rng, 1 + i % 8, i), stream);
    if (HasFailure()) break;
  }
  cuda::DestroyStream(stream);
}

// Every row path: groups of 1..32 lanes, a CTA, a cluster (Hopper), the
// general kernel; tails and misaligned widths; many rows and chunks.
TEST_F(NormGpu, LayerNormBackwardEveryRowWidth) {
  std::mt19937_64 rng(7);
  for (int64_t n : {1, 3, 8, 15, 16, 17, 64, 100, 128, 256, 1000, 1024, 2048, 4096, 4099, 8192, 16384, 32768, 65536,
                    131072, 262144}) {
    for (DType dtype : kDTypes) {
      LnCase c;
      const int64_t rows = n >= 65536 ? 5 : n >= 4096 ? 37 : 1100;
      c.shape = {rows, n};
      c.x_dtype = c.out_dtype = c.gamma_dtype = dtype;
      c.seed = rng();
      RunLnCase(c);
      if (n <= 4099) {
        c.in_arr = Arrangement::kTransposed;
        RunLnCase(c);
      }
      if (HasFailure()) return;
    }
  }
}

TEST_F(NormGpu, LayerNormBackwardManyRows) {
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    for (int64_t n : {8, 128, 1024}) {
      LnCase c;
      c.shape = {70001, n};
      c.x_dtype = c.out_dtype = c.gamma_dtype = dtype;
      RunLnCase(c);
    }
  }
}

TEST_F(NormGpu, LayerNormBackwardNoRows) {
  for (DType dtype : kDTypes) {
    LnCase c;
    c.shape = {0, 8};
    c.x_dtype = c.out_dtype = c.gamma_dtype = dtype;
    RunLnCase(c);  // dgamma, dbeta zero-filled
  }
}

TEST_F(NormGpu, NonFiniteInputsPropagate) {
  std::mt19937_64 rng(11);
  for (DType dtype : kDTypes) {
    for (int64_t n : {40, 1024}) {
      Tensor dy(dtype, {5, n}), x(dtype, {5, n}), mean(DType::kFloat32, {5}), rstd(DType::kFloat32, {5});
      Tensor gamma(dtype, {n}), dx(dtype, {5, n}), dg(dtype, {n}), db(dtype, {n});
      for (Tensor* t : {&dy, &x, &mean, &gamma}) t->FillRandom(rng, -2, 2);
      rstd.FillRandom(rng, 0.5f, 2);
      std::vector<double> xv = x.Values();
      std::vector<float> xf(xv.begin(), xv.end());
      xf[3] = std::numeric_limits<float>::quiet_NaN();
      xf[n + 7] = std::numeric_limits<float>::infinity();
      xf[2 * n + n - 1] = -std::numeric_limits<float>::infinity();
      x.FillValues(xf);
      DeviceTensor d_dy(dy), d_x(x), d_mean(mean), d_rstd(rstd), d_gamma(gamma), d_dx(dx), d_dg(dg), d_db(db);
      LayerNormBackwardArgs a;
      a.dy = d_dy.view(); a.x = d_x.view(); a.mean = d_mean.view(); a.rstd = d_rstd.view(); a.gamma = d_gamma.pointer();
      a.dx = d_dx.view(); a.dgamma = d_dg.view(); a.dbeta = d_db.view();
      Plan plan;
      ASSERT_TRUE(RunOnDevice(PlanLayerNormBackward(a, &plan), plan));
      for (DeviceTensor* t : {&d_dx, &d_dg, &d_db}) t->CopyBack();
      LayerNormBackwardArgs h = a;
      h.dy = dy.view(); h.x = x.view(); h.mean = mean.view(); h.rstd = rstd.view(); h.gamma = &gamma.view();
      h.dx = dx.view(); h.dgamma = dg.view(); h.dbeta = db.view();
      const ref::NormGrads want = ref::LayerNormBackward(h);
      EXPECT_TRUE(Near(dx.Values(), want.dx, dtype, "dx"));
      EXPECT_TRUE(Near(dg.Values(), want.dgamma, dtype, "dgamma"));
      EXPECT_TRUE(Near(db.Values(), want.dbeta, dtype, "dbeta"));
    }
  }
}

// RMSNorm, LayerNormGrad and LayerNormGradBeta over random shapes, dtypes
// and arrangements.
TEST_F(NormGpu, OtherNormOperatorsRandomCases) {
  std::mt19937_64 rng(77);
  for (int i = 0; i < 120; ++i) {
    const int rank = 1 + i % 4;
    std::vector<int64_t> shape = RandomShape(rng, rank, 20000);
    if (i % 10 == 0) shape = {static_cast<int64_t>(3 + i), int64_t{8} << (i % 7 * 2)};  // wide rows too
    const int lead = static_cast<int>(shape.size()) - 1;  // the wide-row shapes have rank 2
    const std::vector<int64_t> rows(shape.begin(), shape.begin() + lead), row(shape.begin() + lead, shape.end());
    const DType dtype = kDTypes[rng() % 3];
    const Arrangement in = kInputs[rng() % 4], out = kOutputs[rng() % 4];
    SCOPED_TRACE("case " + std::to_string(i) + " " + DTypeName(dtype) + " in=" + ArrangementName(in) +
                 " out=" + ArrangementName(out));
    Tensor dy(dtype, shape, in), x(dtype, shape, in), gamma(dtype, row), stat(DType::kFloat32, rows.empty() ? std::vector<int64_t>{1} : rows);
    Tensor mean(dtype, rows.empty() ? std::vector<int64_t>{1} : rows);
    Tensor dx(dtype, shape, out), res(dtype, shape, out), dg(DType::kFloat32, row, out), db(dtype, row, out);
    for (Tensor* t : {&dy, &x, &gamma, &mean}) t->FillRandom(rng, -2, 2);
    stat.FillRandom(rng, 0.2f, 2);
    DeviceTensor d_dy(dy), d_x(x), d_gamma(gamma), d_stat(stat), d_mean(mean), d_dx(dx), d_res(res), d_dg(dg), d_db(db);
    Plan plan;
    switch (i % 3) {
      case 0: {
        RmsNormBackwardArgs a;
        a.dy = d_dy.view(); a.x = d_x.view(); a.rstd = d_stat.view(); a.gamma = d_gamma.view();
        a.dx = d_dx.view(); a.dgamma = d_dg.view();
        ASSERT_TRUE(RunOnDevice(PlanRmsNormBackward(a, &plan), plan));
        d_dx.CopyBack(); d_dg.CopyBack();
        RmsNormBackwardArgs h = a;
        h.dy = dy.view(); h.x = x.view(); h.rstd = stat.view(); h.gamma = gamma.view(); h.dx = dx.view(); h.dgamma = dg.view();
        const ref::NormGrads want = ref::RmsNormBackward(h);
        EXPECT_TRUE(Near(dx.Values(), want.dx, dtype, "rms dx"));
        EXPECT_TRUE(Near(dg.Values(), want.dgamma, DType::kFloat32, "rms dgamma"));
        EXPECT_TRUE(dx.OnlyViewWritten());
        break;
      }
      case 1: {
        LayerNormGradArgs a;
        a.dy = d_dy.view(); a.x = d_x.view(); a.variance = d_stat.view(); a.mean = d_mean.view(); a.gamma = d_gamma.view();
        a.epsilon = 1e-5f; a.dx = d_dx.view(); a.res_for_gamma = d_res.view();
        ASSERT_TRUE(RunOnDevice(PlanLayerNormGrad(a, &plan), plan));
        d_dx.CopyBack(); d_res.CopyBack();
        LayerNormGradArgs h = a;
        h.dy = dy.view(); h.x = x.view(); h.variance = stat.view(); h.mean = mean.view(); h.gamma = gamma.view();
        h.dx = dx.view(); h.res_for_gamma = res.view();
        const ref::NormGrads want = ref::LayerNormGrad(h);
        EXPECT_TRUE(Near(dx.Values(), want.dx, dtype, "pd_x"));
        EXPECT_TRUE(Near(res.Values(), want.res_for_gamma, dtype, "res_for_gamma"));
        EXPECT_TRUE(res.OnlyViewWritten());
        break;
      }
      default: {
        Tensor pg(dtype, row, out);
        DeviceTensor d_pg(pg);
        LayerNormGradBetaArgs a;
        a.res_for_gamma = d_x.view(); a.dy = d_dy.view(); a.dgamma = d_pg.view(); a.dbeta = d_db.view();
        ASSERT_TRUE(RunOnDevice(PlanLayerNormGradBeta(a, &plan), plan));
        d_pg.CopyBack(); d_db.CopyBack();
        LayerNormGradBetaArgs h = a;
        h.res_for_gamma = x.view(); h.dy = dy.view(); h.dgamma = pg.view(); h.dbeta = db.view();
        const ref::NormGrads want = ref::LayerNormGradBeta(h);
        EXPECT_TRUE(Near(pg.Values(), want.dgamma, dtype, "pd_gamma"));
        EXPECT_TRUE(Near(db.Values(), want.dbeta, dtype, "pd_beta"));
        break;
      }
    }
    if (HasFailure()) return;
  }
}

TEST_F(NormGpu, MixedHostAndDeviceMemoryIsRejected) {
  Tensor dy(DType::kFloat32, {4, 64}), x(DType::kFloat32, {4, 64}), rstd(DType::kFloat32, {4}), gamma(DType::kFloat32, {64});
  Tensor dx(DType::kFloat32, {4, 64}), dg(DType::kFloat32, {64});
  DeviceTensor d_dy(dy), d_rstd(rstd), d_gamma(gamma), d_dx(dx), d_dg(dg);
  RmsNormBackwardArgs a;
  a.dy = d_dy.view(); a.x = x.view();  // x in host memory
  a.rstd = d_rstd.view(); a.gamma = d_gamma.view(); a.dx = d_dx.view(); a.dgamma = d_dg.view();
  Plan plan;
  const Status s = PlanRmsNormBackward(a, &plan);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("host memory and device memory mixed"), std::string::npos) << s.message();
  EXPECT_FALSE(plan.valid());
}

// The same bits on every run and for any grid: the grid only decides which
// CTA takes which chunk.
TEST_F(NormGpu, SameBitsForEveryRunAndGrid) {
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{3001, 96}, {20000, 1024}, {300, 8192}, {64, 65536}, {33, 1001}}) {
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      SCOPED_TRACE(std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " " + DTypeName(dtype));
      std::mt19937_64 rng(41);
      const int64_t M = shape[0], N = shape[1];
      Tensor dy(dtype, shape), x(dtype, shape), mean(DType::kFloat32, {M}), rstd(DType::kFloat32, {M});
      Tensor gamma(dtype, {N}), dx(dtype, shape), dg(DType::kFloat32, {N}), db(DType::kFloat32, {N});
      for (Tensor* t : {&dy, &x, &mean, &gamma}) t->FillRandom(rng, -2, 2);
      rstd.FillRandom(rng, 0.5f, 2);
      DeviceTensor d_dy(dy), d_x(x), d_mean(mean), d_rstd(rstd), d_gamma(gamma), d_dx(dx), d_dg(dg), d_db(db);
      cpu::NormProblem p;
      p.kind = cpu::NormKind::kLayerNorm;
      p.M = M;
      p.N = N;
      p.inv_n = 1.0f / static_cast<float>(N);
      p.dy = MatrixOf(d_dy.view(), 1);
      p.x = MatrixOf(d_x.view(), 1);
      p.mean = RowStatOf(d_mean.view());
      p.rstd = RowStatOf(d_rstd.view());
      p.has_gamma = true;
      p.gamma = VectorOf(d_gamma.view());
      p.want_dx = p.want_dgamma = p.want_dbeta = true;
      p.dx = MatrixOf(d_dx.view(), 1);
      p.dgamma = VectorOf(d_dg.view());
      p.dbeta = VectorOf(d_db.view());
      const cuda::NormSchedule full = cuda::ScheduleNorm(p, cuda::QueryDevice(0));
      void* workspace = cuda::DeviceAlloc(full.workspace_bytes);
      std::vector<unsigned char> first;
      for (int64_t units : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{0}}) {
        cuda::NormSchedule s = full;
        if (units > 0) s.grid = std::min(full.grid, units * s.cluster);
        for (DeviceTensor* t : {&d_dx, &d_dg, &d_db}) t->Poison();
        ASSERT_EQ(cuda::RunNorm(p, s, workspace, nullptr), 0);
        std::string error;
        ASSERT_TRUE(cuda::Synchronize(&error)) << error;
        for (DeviceTensor* t : {&d_dx, &d_dg, &d_db}) t->CopyBack();
        std::vector<unsigned char> bytes = dx.Bytes();
        for (const Tensor* t : {&dg, &db}) {
          const std::vector<unsigned char> b = t->Bytes();
          bytes.insert(bytes.end(), b.begin(), b.end());
        }
        if (first.empty()) {
          first = bytes;
        } else {
          EXPECT_TRUE(bytes == first) << "grid " << s.grid << " differs from grid " << full.grid;
        }
      }
      cuda::DeviceFree(workspace);
      LayerNormBackwardArgs h;
      h.dy = dy.view(); h.x = x.view(); h.mean = mean.view(); h.rstd = rstd.view(); h.gamma = &gamma.view();
      h.dx = dx.view(); h.dgamma = dg.view(); h.dbeta = db.view();
      const ref::NormGrads want = ref::LayerNormBackward(h);
      EXPECT_TRUE(Near(dx.Values(), want.dx, dtype, "dx"));
      EXPECT_TRUE(Near(dg.Values(), want.dgamma, DType::kFloat32, "dgamma"));
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
