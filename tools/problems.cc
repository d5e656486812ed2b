#include "problems.h"

#include <cstring>
#include <new>

#include "core/dtype.h"
#include "ref/compare.h"
#include "ref/reference.h"

namespace gradops {
namespace tool {

Buffer::Buffer(DType dtype, std::vector<int64_t> shape, HostPlacement placement) : storage(nullptr, FreeHostMemory) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  bytes = static_cast<size_t>((n * static_cast<int64_t>(DTypeSize(dtype)) + 63) / 64 + 1) * 64;
  storage.reset(AllocateHostMemory(bytes, placement));
  if (storage == nullptr) throw std::bad_alloc();
  std::memset(storage.get(), 0xFF, bytes);
  view = Contiguous(storage.get(), dtype, static_cast<int>(shape.size()), shape.data());
}

float HashUniform(uint64_t stream, uint64_t i, float lo, float hi) {
  uint64_t z = (stream << 32) + i + 0x9E3779B97F4A7C15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const float u = static_cast<float>(z >> 40) * 5.9604644775390625e-8f;  // exact: 24 bits * 2^-24
  return lo + (hi - lo) * u;
}

void Buffer::Fill(uint64_t stream, float lo, float hi) {
  const int64_t n = view.numel();
  for (int64_t i = 0; i < n; ++i) {
    float v = RoundTo(view.dtype, HashUniform(stream, static_cast<uint64_t>(i), lo, hi));
    if (v == 0.0f) v = hi / 2;
    StoreFromFloat(view.data, view.dtype, i, v);
  }
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kLayerNormBackward: return "layer_norm_backward";
    case Op::kRmsNormBackward: return "rms_norm_backward";
    case Op::kLayerNormGrad: return "layer_norm_grad";
    case Op::kLayerNormGradBeta: return "layer_norm_grad_beta";
    case Op::kSiluBackward: return "silu_backward";
  }
  return "?";
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::vector<BenchCase> BenchCases(const std::vector<std::vector<int64_t>>& norm_shapes,
                                  const std::vector<std::vector<int64_t>>& silu_shapes) {
  std::vector<BenchCase> cases;
  for (Op op : {Op::kLayerNormBackward, Op::kRmsNormBackward, Op::kLayerNormGrad, Op::kLayerNormGradBeta}) {
    for (const auto& shape : norm_shapes) cases.push_back({op, shape});
  }
  for (const auto& shape : silu_shapes) cases.push_back({Op::kSiluBackward, shape});
  return cases;
}

std::vector<BenchCase> CpuBenchCases(bool quick) {
  if (quick) return BenchCases({{16384, 1024}, {1024, 16384}}, {{int64_t{1} << 24}});
  return BenchCases({{16384, 1024}, {4096, 4096}, {1024, 16384}, {256, 65536}}, {{int64_t{1} << 26}});
}

enum { kDy, kX, kMean, kRstd, kGamma, kDx, kRes, kDgamma, kDbeta };

Problem::Problem(Op op, DType dtype, const std::vector<int64_t>& shape, uint64_t seed, HostPlacement placement)
    : op_(op), dtype_(dtype) {
  const bool silu = op == Op::kSiluBackward;
  M_ = silu ? 1 : shape[0];
  N_ = silu ? shape[0] : shape[1];
  const std::vector<int64_t> mn = silu ? shape : std::vector<int64_t>{M_, N_};
  const DType stat = DType::kFloat32;
  buffers_.reserve(9);
  const auto add = [&](DType type, std::vector<int64_t> dims) { buffers_.emplace_back(type, dims, placement); };
  add(dtype, mn);                          // dy
  add(dtype, mn);                          // x
  add(stat, std::vector<int64_t>{M_});     // mean or variance
  add(stat, std::vector<int64_t>{M_});     // rstd
  // gamma, dgamma and dbeta in float32 (the mixed precision of training;
  // PyTorch and oneDNN use it too), whatever the dtype of x.
  add(DType::kFloat32, std::vector<int64_t>{N_});  // gamma
  add(dtype, mn);                          // dx
  add(dtype, op == Op::kLayerNormGrad ? mn : std::vector<int64_t>{1});  // res_for_gamma
  add(DType::kFloat32, std::vector<int64_t>{N_});  // dgamma
  add(DType::kFloat32, std::vector<int64_t>{N_});  // dbeta
  // The streams and ranges below are the contract with the peers' scripts.
  buffers_[kDy].Fill(seed * 8 + 0, -3, 3);
  buffers_[kX].Fill(seed * 8 + 1, silu ? -8 : -3, silu ? 8 : 3);
  buffers_[kMean].Fill(seed * 8 + 2, -1, 1);
  buffers_[kRstd].Fill(seed * 8 + 3, 0.1f, 3);
  buffers_[kGamma].Fill(seed * 8 + 4, -3, 3);
  if (op == Op::kRmsNormBackward) {
    // rstd as a forward pass gives it: that of x (eps 1e-6) rounded to float32.
    // PyTorch's RMSNorm backward derives rstd from x, so its peer then solves
    // the same problem.
    const std::vector<double> rstd = ref::RmsNormRstd(ref::Read(buffers_[kX].view), M_, N_, 1e-6);
    for (int64_t i = 0; i < M_; ++i) StoreFromFloat(buffers_[kRstd].view.data, stat, i, static_cast<float>(rstd[i]));
  }
  const auto v = [&](int k) { return buffers_[k].view; };
  ln_.dy = v(kDy); ln_.x = v(kX); ln_.mean = v(kMean); ln_.rstd = v(kRstd); ln_.gamma = &buffers_[kGamma].view;
  ln_.dx = v(kDx); ln_.dgamma = v(kDgamma); ln_.dbeta = v(kDbeta);
  rms_.dy = v(kDy); rms_.x = v(kX); rms_.rstd = v(kRstd); rms_.gamma = v(kGamma);
  rms_.dx = v(kDx); rms_.dgamma = v(kDgamma);
  // LayerNormGrad reads the rstd buffer's values (0.1 .. 3) as variances.
  grad_.dy = v(kDy); grad_.x = v(kX); grad_.variance = v(kRstd); grad_.mean = v(kMean); grad_.gamma = v(kGamma);
  grad_.dx = v(kDx); grad_.res_for_gamma = v(kRes);
  beta_.res_for_gamma = v(kX); beta_.dy = v(kDy); beta_.dgamma = v(kDgamma); beta_.dbeta = v(kDbeta);
  silu_.dy = v(kDy); silu_.x = v(kX); silu_.dx = v(kDx);
}

Status Problem::MakePlan(Plan* plan) const {
  switch (op_) {
    case Op::kLayerNormBackward: return PlanLayerNormBackward(ln_, plan);
    case Op::kRmsNormBackward: return PlanRmsNormBackward(rms_, plan);
    case Op::kLayerNormGrad: return PlanLayerNormGrad(grad_, plan);
    case Op::kLayerNormGradBeta: return PlanLayerNormGradBeta(beta_, plan);
    case Op::kSiluBackward: return PlanSiluBackward(silu_, plan);
  }
  return Status(StatusCode::kInvalidArgument, "op: unknown");
}

void Problem::Relocate(void* (*move)(const void* data, size_t bytes)) {
  for (Buffer& b : buffers_) {
    void* const old = b.view.data;
    void* const now = move(old, b.bytes);
    for (TensorView* v : {&ln_.dy, &ln_.x, &ln_.mean, &ln_.rstd, &ln_.dx, &ln_.dgamma, &ln_.dbeta, &rms_.dy, &rms_.x,
                          &rms_.rstd, &rms_.gamma, &rms_.dx, &rms_.dgamma, &grad_.dy, &grad_.x, &grad_.variance,
                          &grad_.mean, &grad_.gamma, &grad_.dx, &grad_.res_for_gamma, &beta_.res_for_gamma,
                          &beta_.dy, &beta_.dgamma, &beta_.dbeta, &silu_.dy, &silu_.x, &silu_.dx}) {
      if (v->data == old) v->data = now;
    }
    b.view.data = now;  // ln_.gamma points at this view
  }
}

double Problem::bytes_moved() const {
  const double e = static_cast<double>(DTypeSize(dtype_)), mn = static_cast<double>(M_) * N_;
  const double rows = 4.0 * M_, cols = 4.0 * N_;  // float32 statistics and gamma-sized vectors
  switch (op_) {
    case Op::kLayerNormBackward: return 3 * mn * e + 2 * rows + 3 * cols;  // + gamma, dgamma, dbeta
    case Op::kRmsNormBackward: return 3 * mn * e + rows + 2 * cols;
    case Op::kLayerNormGrad: return 4 * mn * e + 2 * rows + cols;         // + res_for_gamma written
    case Op::kLayerNormGradBeta: return 2 * mn * e + 2 * cols;
    case Op::kSiluBackward: return 3 * mn * e;
  }
  return 0;
}

bool Problem::Check(std::vector<std::pair<std::string, ref::Comparison>>* errors) const {
  bool ok = true;
  auto compare = [&](const char* name, const TensorView& got, const std::vector<double>& want) {
    const ref::Comparison c = ref::Compare(ref::Read(got), want, got.dtype);
    errors->emplace_back(name, c);
    ok = ok && c.ok;
  };
  switch (op_) {
    case Op::kLayerNormBackward: {
      const ref::NormGrads w = ref::LayerNormBackward(ln_);
      compare("dx", ln_.dx, w.dx);
      compare("dgamma", ln_.dgamma, w.dgamma);
      compare("dbeta", ln_.dbeta, w.dbeta);
      break;
    }
    case Op::kRmsNormBackward: {
      const ref::NormGrads w = ref::RmsNormBackward(rms_);
      compare("dx", rms_.dx, w.dx);
      compare("dgamma", rms_.dgamma, w.dgamma);
      break;
    }
    case Op::kLayerNormGrad: {
      const ref::NormGrads w = ref::LayerNormGrad(grad_);
      compare("pd_x", grad_.dx, w.dx);
      compare("res_for_gamma", grad_.res_for_gamma, w.res_for_gamma);
      break;
    }
    case Op::kLayerNormGradBeta: {
      const ref::NormGrads w = ref::LayerNormGradBeta(beta_);
      compare("pd_gamma", beta_.dgamma, w.dgamma);
      compare("pd_beta", beta_.dbeta, w.dbeta);
      break;
    }
    case Op::kSiluBackward: compare("dx", silu_.dx, ref::SiluBackward(silu_)); break;
  }
  return ok;
}

}  // namespace tool
}  // namespace gradops
