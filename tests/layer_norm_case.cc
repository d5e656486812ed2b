#include "layer_norm_case.h"

#include "ref/reference.h"

namespace gradops {
namespace testing {
namespace {

std::vector<int64_t> StatShape(const LnCase& c) {
  const int lead = static_cast<int>(c.shape.size()) - c.normalized_rank;
  std::vector<int64_t> s(c.shape.begin(), c.shape.begin() + lead);
  for (int d = 0; d < c.normalized_rank; ++d) s.push_back(1);
  return s;
}

std::vector<int64_t> NormShape(const LnCase& c) {
  return std::vector<int64_t>(c.shape.end() - c.normalized_rank, c.shape.end());
}

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

}  // namespace

std::string Describe(const LnCase& c) {
  std::string s = "shape [";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  return s + "] j=" + std::to_string(c.normalized_rank) + " x=" + DTypeName(c.x_dtype) + " stat=" +
         DTypeName(c.stat_dtype) + " dx=" + DTypeName(c.out_dtype) +
         " gamma=" + (c.has_gamma ? DTypeName(c.gamma_dtype) : "none") + " mask=" + std::to_string(c.mask[0]) +
         std::to_string(c.mask[1]) + std::to_string(c.mask[2]) + " in=" + ArrangementName(c.in_arr) +
         " out=" + ArrangementName(c.out_arr);
}

LnTensors::LnTensors(const LnCase& c)
    : dy(c.x_dtype, c.shape, c.in_arr),
      x(c.x_dtype, c.shape, c.in_arr),
      mean(c.stat_dtype, StatShape(c), Arrangement::kStrided),
      rstd(c.stat_dtype, StatShape(c), Arrangement::kOffset),
      gamma(c.gamma_dtype, NormShape(c), c.in_arr == Arrangement::kBroadcast ? Arrangement::kStrided : c.in_arr),
      dx(c.out_dtype, c.shape, c.out_arr),
      dgamma(c.has_gamma ? c.gamma_dtype : c.x_dtype, NormShape(c), c.out_arr),
      dbeta(c.has_gamma ? c.gamma_dtype : c.x_dtype, NormShape(c), c.out_arr) {
  std::mt19937_64 rng(c.seed);
  dy.FillRandom(rng, -3, 3);
  x.FillRandom(rng, -3, 3);
  mean.FillRandom(rng, -1, 1);
  rstd.FillRandom(rng, 0.1f, 3);
  gamma.FillRandom(rng, -3, 3);
  args.dy = dy.view();
  args.x = x.view();
  args.normalized_rank = c.normalized_rank;
  args.mean = mean.view();
  args.rstd = rstd.view();
  args.gamma = c.has_gamma ? &gamma.view() : nullptr;
  for (int k = 0; k < 3; ++k) args.output_mask[k] = c.mask[k];
  args.dx = dx.view();
  args.dgamma = dgamma.view();
  args.dbeta = dbeta.view();
}

::testing::AssertionResult RunOnCpu(LnTensors& t) {
  Plan plan;
  const Status s = PlanAndRun(PlanLayerNormBackward(t.args, &plan), plan);
  return s.ok() ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << s.message();
}

void CheckLayerNormCase(const LnCase& c, const LnRunner& run) {
  SCOPED_TRACE(Describe(c));
  LnTensors t(c);
  ASSERT_TRUE(run(t));
  const ref::NormGrads want = ref::LayerNormBackward(t.args);
  const Tensor* outs[3] = {&t.dx, &t.dgamma, &t.dbeta};
  const std::vector<double>* wants[3] = {&want.dx, &want.dgamma, &want.dbeta};
  const char* names[3] = {"dx", "dgamma", "dbeta"};
  for (int k = 0; k < 3; ++k) {
    if (c.mask[k]) {
      EXPECT_TRUE(Near(outs[k]->Values(), *wants[k], outs[k]->view().dtype, names[k]));
      EXPECT_TRUE(outs[k]->OnlyViewWritten()) << names[k];
    } else {
      EXPECT_TRUE(outs[k]->Untouched()) << names[k] << " is masked off";
    }
  }
}

LnCase RandomLnCase(std::mt19937_64& rng, int rank, int mask_bits) {
  static const Arrangement kInputs[5] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                         Arrangement::kOffset, Arrangement::kBroadcast};
  static const Arrangement kOutputs[4] = {Arrangement::kContiguous, Arrangement::kTransposed,
                                          Arrangement::kStrided, Arrangement::kOffset};
  LnCase c;
  c.shape = RandomShape(rng, rank, 6000);
  c.normalized_rank = 1 + static_cast<int>(rng() % rank);
  c.x_dtype = kDTypes[rng() % 3];
  c.stat_dtype = kDTypes[rng() % 3];
  c.out_dtype = rng() % 4 == 0 ? kDTypes[rng() % 3] : c.x_dtype;
  c.has_gamma = rng() % 4 != 0;
  c.gamma_dtype = rng() % 2 ? DType::kFloat32 : c.x_dtype;
  for (int k = 0; k < 3; ++k) c.mask[k] = !((mask_bits >> k) & 1);
  c.in_arr = kInputs[rng() % 5];
  c.out_arr = kOutputs[rng() % 4];
  c.seed = rng();
  return c;
}

}  // namespace testing
}  // namespace gradops
