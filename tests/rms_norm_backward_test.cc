// RMSNorm backward against the float64 reference.
#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

void RunRmsCase(const std::vector<int64_t>& shape, int gamma_rank, DType dtype, DType gamma_dtype, DType rstd_dtype,
                Arrangement in_arr, Arrangement out_arr, uint64_t seed) {
  SCOPED_TRACE(std::string(DTypeName(dtype)) + " gamma " + DTypeName(gamma_dtype) + " rank " +
               std::to_string(shape.size()) + "/" + std::to_string(gamma_rank) + " in " + ArrangementName(in_arr) +
               " out " + ArrangementName(out_arr));
  std::mt19937_64 rng(seed);
  const int lead = static_cast<int>(shape.size()) - gamma_rank;
  const std::vector<int64_t> gshape(shape.begin() + lead, shape.end());
  std::vector<int64_t> rshape(shape.begin(), shape.begin() + lead);
  rshape.push_back(1);  // the documents' [dim_0, .., 1]
  Tensor dy(dtype, shape, in_arr), x(dtype, shape, in_arr), rstd(rstd_dtype, rshape, Arrangement::kStrided);
  Tensor gamma(gamma_dtype, gshape), dx(dtype, shape, out_arr), dgamma(DType::kFloat32, gshape, out_arr);
  dy.FillRandom(rng, -3, 3);
  x.FillRandom(rng, -3, 3);
  rstd.FillRandom(rng, 0.1f, 3);
  gamma.FillRandom(rng, -3, 3);
  RmsNormBackwardArgs a;
  a.dy = dy.view(); a.x = x.view(); a.rstd = rstd.view(); a.gamma = gamma.view();
  a.dx = dx.view(); a.dgamma = dgamma.view();
  Plan plan;
  const Status s = PlanAndRun(PlanRmsNormBackward(a, &plan), plan);
  ASSERT_TRUE(s.ok()) << s.message();
  const ref::NormGrads want = ref::RmsNormBackward(a);
  EXPECT_TRUE(Near(dx.Values(), want.dx, dtype, "dx"));
  EXPECT_TRUE(Near(dgamma.Values(), want.dgamma, DType::kFloat32, "dgamma"));
  EXPECT_TRUE(dx.OnlyViewWritten());
  EXPECT_TRUE(dgamma.OnlyViewWritten());
}

TEST(RmsNormBackward, RandomCasesAgainstReference) {
  std::mt19937_64 rng(13);
  const Arrangement ins[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                              Arrangement::kBroadcast};
  const Arrangement outs[3] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kOffset};
  for (int i = 0; i < 200; ++i) {
    const int rank = 1 + i % 8;
    const std::vector<int64_t> shape = RandomShape(rng, rank, 6000);
    const int gamma_rank = 1 + static_cast<int>(rng() % rank);
    const DType dtype = kDTypes[rng() % 3];
    RunRmsCase(shape, gamma_rank, dtype, rng() % 2 ? DType::kFloat32 : dtype, kDTypes[rng() % 3], ins[rng() % 4],
               outs[rng() % 3], rng());
    if (::testing::Test::HasFailure()) return;
  }
}

// The scenario of the documents' sample: [32, 64, 128], every value 2.
TEST(RmsNormBackward, DocumentSample) {
  Tensor dy(DType::kFloat32, {32, 64, 128}), x(DType::kFloat32, {32, 64, 128}), rstd(DType::kFloat32, {32, 64, 1});
  Tensor gamma(DType::kFloat32, {128}), dx(DType::kFloat32, {32, 64, 128}), dgamma(DType::kFloat32, {128});
  dy.FillValues(std::vector<float>(32 * 64 * 128, 2.0f));
  x.FillValues(std::vector<float>(32 * 64 * 128, 2.0f));
  rstd.FillValues(std::vector<float>(32 * 64, 2.0f));
  gamma.FillValues(std::vector<float>(128, 2.0f));
  RmsNormBackwardArgs a;
  a.dy = dy.view(); a.x = x.view(); a.rstd = rstd.view(); a.gamma = gamma.view();
  a.dx = dx.view(); a.dgamma = dgamma.view();
  Plan plan;
  ASSERT_TRUE(PlanAndRun(PlanRmsNormBackward(a, &plan), plan).ok());
  // x1 = 4, mean(dy*gamma*x1) = 16, dx = 2 * (4 - 4 * 16) = -120, dgamma = 2048 * 2 * 4.
  EXPECT_EQ(dx.Values(), std::vector<double>(32 * 64 * 128, -120.0));
  EXPECT_EQ(dgamma.Values(), std::vector<double>(128, 16384.0));
}

TEST(RmsNormBackward, LongRows) {
  std::mt19937_64 rng(17);
  for (int64_t n : {1, 7, 16, 100, 1023, 5000, 65537}) {
    for (DType dtype : kDTypes) {
      RunRmsCase({n > 5000 ? 3 : 300, n}, 1, dtype, dtype, DType::kFloat32, Arrangement::kContiguous,
                 Arrangement::kContiguous, rng());
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
