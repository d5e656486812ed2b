// Bitwise determinism: the same bits for every run and every thread count,
// and for every memory arrangement of the same logical data.
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include "cpu/norm.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

// Runs `make_and_run` with several thread counts and compares all output bytes.
void ExpectSameBitsForAnyThreads(const std::function<std::vector<unsigned char>()>& make_and_run) {
  SetNumThreads(1);
  const std::vector<unsigned char> first = make_and_run();
  for (int threads : {2, 3, 8, 1, 5}) {
    SetNumThreads(threads);
    EXPECT_EQ(make_and_run(), first) << threads << " threads";
  }
  SetNumThreads(0);
}

std::vector<unsigned char> Concat(std::initializer_list<const Tensor*> ts) {
  std::vector<unsigned char> all;
  for (const Tensor* t : ts) {
    const std::vector<unsigned char> b = t->Bytes();
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

// A LayerNorm backward problem on random data: M rows of N values of
// `dtype`, gamma and the gradients dgamma and dbeta of `gamma_dtype`.
struct LayerNormData {
  LayerNormData(DType dtype, DType gamma_dtype, int64_t M, int64_t N, uint64_t seed)
      : dy(dtype, {M, N}), x(dtype, {M, N}), mean(DType::kFloat32, {M}), rstd(DType::kFloat32, {M}),
        gamma(gamma_dtype, {N}), dx(dtype, {M, N}), dg(gamma_dtype, {N}), db(gamma_dtype, {N}) {
    std::mt19937_64 rng(seed);
    for (Tensor* t : {&dy, &x, &mean, &gamma}) t->FillRandom(rng, -2, 2);
    rstd.FillRandom(rng, 0.5f, 2);
  }
  LayerNormBackwardArgs Args() const {
    LayerNormBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
    a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
    return a;
  }
  std::vector<unsigned char> Outputs() const { return Concat({&dx, &dg, &db}); }
  Tensor dy, x, mean, rstd, gamma, dx, dg, db;
};

TEST(Determinism, LayerNormBackwardAcrossThreads) {
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    ExpectSameBitsForAnyThreads([&] {
      LayerNormData d(dtype, dtype, 3001, 96, 41);
      Plan plan;
      EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(d.Args(), &plan), plan).ok());
      return d.Outputs();
    });
  }
}

// The workspace may start at any byte (the kernels' layout in it starts at
// its first line boundary): the same bits at every offset, and not a byte
// written outside the workspace_bytes() it was given, with each sweep (rows
// alone keep their dgamma/dbeta sums in the workspace's last bytes).
TEST(Determinism, LayerNormBackwardWorkspaceAtAnyOffset) {
  const cpu::NormSweep before = cpu::SetNormSweep(cpu::NormSweep::kTargets);
  const auto run_at_offsets = [](DType dtype, int64_t M, int64_t N) {
    LayerNormData d(dtype, DType::kFloat32, M, N, 46);
    Plan plan;
    ASSERT_TRUE(PlanLayerNormBackward(d.Args(), &plan).ok());
    const size_t bytes = plan.workspace_bytes();
    constexpr size_t kGuard = 128;
    constexpr unsigned char kFill = 0xA5;
    std::vector<unsigned char> first;
    for (size_t offset : {0, 1, 16, 40, 63}) {
      std::vector<unsigned char> buffer(kGuard + 64 + bytes + kGuard, kFill);
      // Offsets from a line boundary inside the buffer.
      const size_t base = kGuard + (64 - reinterpret_cast<uintptr_t>(buffer.data() + kGuard) % 64) % 64;
      ASSERT_TRUE(gradops::Run(plan, buffer.data() + base + offset, bytes).ok());
      for (size_t i = 0; i < buffer.size(); ++i) {
        const bool outside = i < base + offset || i >= base + offset + bytes;
        if (outside) ASSERT_EQ(buffer[i], kFill) << "offset " << offset << ", byte " << i;
      }
      const std::vector<unsigned char> out = d.Outputs();
      if (first.empty()) first = out;
      EXPECT_TRUE(out == first) << "offset " << offset;
    }
  };
  for (cpu::NormSweep sweep : {cpu::NormSweep::kRows, cpu::NormSweep::kBlocks, cpu::NormSweep::kFused}) {
    cpu::SetNormSweep(sweep);
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      for (const auto& [M, N] : std::vector<std::pair<int64_t, int64_t>>{{70, 1030}, {13, 4100}}) {
        SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + std::to_string(M) + "x" + std::to_string(N) + " sweep " +
                     std::to_string(static_cast<int>(sweep)));
        run_at_offsets(dtype, M, N);
      }
    }
  }
  cpu::SetNormSweep(before);
}

// The CPU's bfloat16 conversion instructions (where it has them) change no
// bit of any output, denormal and NaN ones included.
TEST(Determinism, BFloat16InstructionsChangeNoBit) {
  constexpr int64_t M = 64, N = 160;
  std::mt19937_64 rng(44);
  Tensor dy(DType::kBFloat16, {M, N}), x(DType::kBFloat16, {M, N}), mean(DType::kFloat32, {M});
  Tensor gamma(DType::kFloat32, {N}), rstd(DType::kFloat32, {M});
  for (Tensor* t : {&dy, &x, &mean, &gamma}) t->FillRandom(rng, -2, 2);
  std::vector<float> rstd_values(M), dy_values(M * N);
  for (int64_t r = 0; r < M; ++r) rstd_values[r] = r % 4 == 0 ? 3e-39f : 0.5f + 0.01f * static_cast<float>(r);
  rstd.FillValues(rstd_values);  // every fourth row's dx denormal
  const std::vector<double> dy_random = dy.Values();
  for (int64_t i = 0; i < M * N; ++i) dy_values[i] = static_cast<float>(dy_random[i]) * (i / N % 4 == 1 ? 1e-38f : 1);
  dy_values[5 * N + 17] = std::numeric_limits<float>::quiet_NaN();  // a NaN row
  dy.FillValues(dy_values);  // and SiLU's dx denormal in every fourth row

  std::vector<unsigned char> outputs[2];  // without, with the instructions
  for (bool allowed : {false, true}) {
    const BFloat16InstructionsScope scope(allowed);
    Tensor dx(DType::kBFloat16, {M, N}), dg(DType::kFloat32, {N}), db(DType::kFloat32, {N});
    Tensor silu_dx(DType::kBFloat16, {M, N});
    LayerNormBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
    a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
    Plan plan;
    EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
    SiluBackwardArgs s;
    s.dy = dy.view(); s.x = x.view(); s.dx = silu_dx.view();
    EXPECT_TRUE(PlanAndRun(PlanSiluBackward(s, &plan), plan).ok());
    outputs[allowed] = Concat({&dx, &dg, &db, &silu_dx});
  }
  EXPECT_EQ(outputs[1], outputs[0]);
  if (!cpu::BFloat16Instructions()) GTEST_SKIP() << "this CPU has no AVX512-BF16: both runs took the same path";
}

// A host plan ignores Run's stream argument (it is never dereferenced):
// done when Run returns, with the same bits as without one.
TEST(Determinism, HostPlansIgnoreTheStream) {
  std::mt19937_64 rng(43);
  Tensor dy(DType::kBFloat16, {300, 200}), x(DType::kBFloat16, {300, 200}), rstd(DType::kFloat32, {300});
  Tensor gamma(DType::kFloat32, {200});
  for (Tensor* t : {&dy, &x, &gamma}) t->FillRandom(rng, -2, 2);
  rstd.FillRandom(rng, 0.5f, 2);
  std::vector<unsigned char> outputs[2];
  for (int with_stream = 0; with_stream < 2; ++with_stream) {
    Tensor dx(DType::kBFloat16, {300, 200}), dg(DType::kFloat32, {200});
    RmsNormBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.rstd = rstd.view(); a.gamma = gamma.view(); a.dx = dx.view(); a.dgamma = dg.view();
    Plan plan;
    ASSERT_TRUE(PlanRmsNormBackward(a, &plan).ok());
    std::vector<unsigned char> workspace(plan.workspace_bytes());
    void* const not_a_stream = reinterpret_cast<void*>(uintptr_t{0x10});
    ASSERT_TRUE(gradops::Run(plan, workspace.data(), workspace.size(), with_stream ? not_a_stream : nullptr).ok());
    EXPECT_TRUE(dx.OnlyViewWritten());
    outputs[with_stream] = Concat({&dx, &dg});
  }
  EXPECT_EQ(outputs[1], outputs[0]);
}

TEST(Determinism, OtherOperatorsAcrossThreads) {
  ExpectSameBitsForAnyThreads([] {
    std::mt19937_64 rng(42);
    Tensor dy(DType::kFloat16, {40, 50, 64}), x(DType::kFloat16, {40, 50, 64}), rstd(DType::kFloat32, {40, 50});
    Tensor gamma(DType::kFloat16, {64}), dx(DType::kFloat16, {40, 50, 64}), dg(DType::kFloat32, {64});
    Tensor var(DType::kFloat16, {40, 50}), mean(DType::kFloat16, {40, 50}), res(DType::kFloat16, {40, 50, 64});
    Tensor dx2(DType::kFloat16, {40, 50, 64}), pg(DType::kFloat16, {64}), pb(DType::kFloat16, {64});
    Tensor sdx(DType::kFloat16, {40, 50, 64});
    for (Tensor* t : {&dy, &x, &gamma, &mean}) t->FillRandom(rng, -2, 2);
    rstd.FillRandom(rng, 0.5f, 2);
    var.FillRandom(rng, 0.5f, 2);
    Plan plan;
    RmsNormBackwardArgs r;
    r.dy = dy.view(); r.x = x.view(); r.rstd = rstd.view(); r.gamma = gamma.view(); r.dx = dx.view(); r.dgamma = dg.view();
    EXPECT_TRUE(PlanAndRun(PlanRmsNormBackward(r, &plan), plan).ok());
    LayerNormGradArgs g;
    g.dy = dy.view(); g.x = x.view(); g.variance = var.view(); g.mean = mean.view(); g.gamma = gamma.view();
    g.dx = dx2.view(); g.res_for_gamma = res.view();
    EXPECT_TRUE(PlanAndRun(PlanLayerNormGrad(g, &plan), plan).ok());
    LayerNormGradBetaArgs b;
    b.res_for_gamma = res.view(); b.dy = dy.view(); b.dgamma = pg.view(); b.dbeta = pb.view();
    EXPECT_TRUE(PlanAndRun(PlanLayerNormGradBeta(b, &plan), plan).ok());
    SiluBackwardArgs s;
    s.dy = dy.view(); s.x = x.view(); s.dx = sdx.view();
    EXPECT_TRUE(PlanAndRun(PlanSiluBackward(s, &plan), plan).ok());
    return Concat({&dx, &dg, &dx2, &res, &pg, &pb, &sdx});
  });
}

// Column sums alone (no dx) are tasks of column tiles, as many as the
// threads call for: the same bits for any thread count, and on the packed
// path (transposed rows) as on the direct one.
TEST(Determinism, ColumnSumsInTilesAcrossThreads) {
  constexpr int64_t M = 300, N = 9000;  // two chunks, up to four tiles
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    std::mt19937_64 rng(47);
    Tensor src_dy(dtype, {M, N}), src_res(dtype, {M, N});
    src_dy.FillRandom(rng, -2, 2);
    src_res.FillRandom(rng, -2, 2);
    const std::vector<double> vdy = src_dy.Values(), vres = src_res.Values();
    std::vector<std::vector<unsigned char>> by_arrangement;
    for (Arrangement arr : {Arrangement::kContiguous, Arrangement::kTransposed}) {
      const auto run = [&] {
        Tensor dy(dtype, {M, N}, arr), res(dtype, {M, N}, arr), pg(DType::kFloat32, {N}), pb(DType::kFloat32, {N});
        dy.FillValues(std::vector<float>(vdy.begin(), vdy.end()));
        res.FillValues(std::vector<float>(vres.begin(), vres.end()));
        LayerNormGradBetaArgs b;
        b.res_for_gamma = res.view(); b.dy = dy.view(); b.dgamma = pg.view(); b.dbeta = pb.view();
        Plan plan;
        EXPECT_TRUE(PlanAndRun(PlanLayerNormGradBeta(b, &plan), plan).ok());
        LayerNormData d(dtype, DType::kFloat32, M, N, 48);
        LayerNormBackwardArgs a = d.Args();
        a.output_mask[0] = false;  // dgamma and dbeta alone
        EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
        return Concat({&pg, &pb, &d.dg, &d.db});
      };
      ExpectSameBitsForAnyThreads(run);
      by_arrangement.push_back(run());
    }
    EXPECT_TRUE(by_arrangement[0] == by_arrangement[1]) << DTypeName(dtype);
  }
}

// The packed path (strided or transposed rows) gives the same bits as the
// direct path on contiguous rows.
TEST(Determinism, SameBitsForEveryArrangement) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    std::vector<std::vector<double>> results;
    for (Arrangement arr : {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided}) {
      std::mt19937_64 rng(43);
      Tensor mean(DType::kFloat32, {300}), rstd(DType::kFloat32, {300}), gamma(DType::kFloat32, {77});
      for (Tensor* t : {&mean, &gamma}) t->FillRandom(rng, -2, 2);
      rstd.FillRandom(rng, 0.5f, 2);
      Tensor src_dy(dtype, {300, 77}), src_x(dtype, {300, 77});
      src_dy.FillRandom(rng, -2, 2);
      src_x.FillRandom(rng, -2, 2);
      const std::vector<double> vdy = src_dy.Values(), vx = src_x.Values();
      Tensor dy(dtype, {300, 77}, arr), x(dtype, {300, 77}, arr), dx(dtype, {300, 77}, arr);
      Tensor dg(DType::kFloat32, {77}), db(DType::kFloat32, {77});
      dy.FillValues(std::vector<float>(vdy.begin(), vdy.end()));
      x.FillValues(std::vector<float>(vx.begin(), vx.end()));
      LayerNormBackwardArgs a;
      a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
      a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
      Plan plan;
      ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
      std::vector<double> all = dx.Values();
      for (const Tensor* t : {&dg, &db}) {
        const std::vector<double> v = t->Values();
        all.insert(all.end(), v.begin(), v.end());
      }
      results.push_back(all);
    }
    for (size_t i = 1; i < results.size(); ++i) {
      ASSERT_EQ(results[i].size(), results[0].size());
      for (size_t k = 0; k < results[0].size(); ++k) {
        ASSERT_EQ(std::memcmp(&results[i][k], &results[0][k], sizeof(double)), 0) << "element " << k;
      }
    }
  }
}

// Pass 2 by blocks of rows, by rows alone or by rows fused with the next
// row's pass 1 (cpu/norm.h): the same bits for every norm operator, dtype and
// output mask, with row tails, groups of the dgamma/dbeta sums that span
// blocks and chunks of every length (2049 rows: chunks of 129 where there are
// dgamma/dbeta partials, of 33 where there are none; odd lengths), and rows
// wide enough to be fused alone (19x32771), whose pairs carry terms.
TEST(Determinism, EverySweepGivesTheSameBits) {
  const auto run_all = [](DType dtype, int64_t M, int64_t N) {
    std::mt19937_64 rng(45);
    Tensor dy(dtype, {M, N}), x(dtype, {M, N}), mean(DType::kFloat32, {M}), rstd(DType::kFloat32, {M});
    Tensor gamma(DType::kFloat32, {N}), dx(dtype, {M, N}), dg(DType::kFloat32, {N}), db(DType::kFloat32, {N});
    Tensor dx_only(dtype, {M, N}), dg_only(DType::kFloat32, {N}), rms_dx(dtype, {M, N}), rms_dg(DType::kFloat32, {N});
    Tensor var(DType::kFloat32, {M}), grad_dx(dtype, {M, N}), res(dtype, {M, N});
    for (Tensor* t : {&dy, &x, &mean, &gamma}) t->FillRandom(rng, -2, 2);
    rstd.FillRandom(rng, 0.5f, 2);
    var.FillRandom(rng, 0.5f, 2);
    Plan plan;
    LayerNormBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
    a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
    EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
    a.dx = dx_only.view(); a.output_mask[1] = a.output_mask[2] = false;
    EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
    a.dgamma = dg_only.view(); a.output_mask[0] = a.output_mask[2] = false; a.output_mask[1] = true;
    EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
    RmsNormBackwardArgs r;
    r.dy = dy.view(); r.x = x.view(); r.rstd = rstd.view(); r.gamma = gamma.view();
    r.dx = rms_dx.view(); r.dgamma = rms_dg.view();
    EXPECT_TRUE(PlanAndRun(PlanRmsNormBackward(r, &plan), plan).ok());
    LayerNormGradArgs g;
    g.dy = dy.view(); g.x = x.view(); g.variance = var.view(); g.mean = mean.view(); g.gamma = gamma.view();
    g.dx = grad_dx.view(); g.res_for_gamma = res.view();
    EXPECT_TRUE(PlanAndRun(PlanLayerNormGrad(g, &plan), plan).ok());
    return Concat({&dx, &dg, &db, &dx_only, &dg_only, &rms_dx, &rms_dg, &grad_dx, &res});
  };
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const std::vector<std::pair<int64_t, int64_t>> shapes{{45, 1},     {301, 77}, {70, 1030},
                                                          {13, 4100}, {2049, 5}, {19, 32771}};
    for (const auto& [M, N] : shapes) {
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + std::to_string(M) + "x" + std::to_string(N));
      const cpu::NormSweep before = cpu::SetNormSweep(cpu::NormSweep::kRows);
      const std::vector<unsigned char> rows = run_all(dtype, M, N);
      cpu::SetNormSweep(cpu::NormSweep::kBlocks);
      const std::vector<unsigned char> blocks = run_all(dtype, M, N);
      cpu::SetNormSweep(cpu::NormSweep::kFused);
      const std::vector<unsigned char> fused = run_all(dtype, M, N);
      cpu::SetNormSweep(before);
      EXPECT_TRUE(rows == blocks);
      EXPECT_TRUE(fused == blocks);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
