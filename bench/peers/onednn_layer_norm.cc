// Peer: oneDNN layer normalization backward (scale and shift, so dgamma and
// dbeta are produced), on the same inputs as `gradops bench` (tools/problems.h).
// Prints one JSON object per line for oneDNN and for gradops on those inputs:
// time, GB/s and the largest error of dx, dgamma, dbeta against the float64
// reference. Both write dx into the same buffer; --huge-pages puts every
// tensor on large pages, as `gradops bench --huge-pages` does. Where oneDNN
// has no implementation for the dtype on this CPU (its bfloat16 layer
// normalization needs AVX-512), the oneDNN line says so in "unsupported".
//   onednn_layer_norm [--huge-pages] THREADS REPS DTYPE M N [M N ...]
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "dnnl.hpp"
#include "problems.h"
#include "timing.h"
#include "ref/compare.h"
#include "ref/reference.h"

using namespace gradops;
using namespace gradops::tool;

namespace {

void Report(const char* system, DType dtype, int64_t M, int64_t N, int threads, double ms, double bytes,
            const std::vector<double>& dx, const std::vector<double>& dg, const std::vector<double>& db,
            const ref::NormGrads& want) {
  const ref::Comparison e_dx = ref::Compare(dx, want.dx, dtype);
  const ref::Comparison e_dg = ref::Compare(dg, want.dgamma, DType::kFloat32);
  const ref::Comparison e_db = ref::Compare(db, want.dbeta, DType::kFloat32);
  std::printf("{\"system\": \"%s\", \"op\": \"layer_norm_backward\", \"dtype\": \"%s\", \"shape\": [%lld, %lld], "
              "\"threads\": %d, \"ms\": %.4f, \"gbps\": %.2f, \"max_error\": {\"dx\": %.3e, \"dgamma\": %.3e, "
              "\"dbeta\": %.3e}, \"misrounded\": {\"dx\": %.3e, \"dgamma\": %.3e, \"dbeta\": %.3e}}\n",
              system, DTypeName(dtype), static_cast<long long>(M), static_cast<long long>(N), threads, ms,
              bytes / (ms * 1e6), e_dx.max_error, e_dg.max_error, e_db.max_error, e_dx.misrounded, e_dg.misrounded,
              e_db.misrounded);
  std::fflush(stdout);
}

std::vector<double> Floats(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

}  // namespace

int main(int argc, char** argv) {
  HostPlacement placement;  // of the problem's tensors, which gradops and oneDNN share
  for (; argc > 1 && std::strncmp(argv[1], "--", 2) == 0; --argc, ++argv) {
    if (std::strcmp(argv[1], "--huge-pages") == 0) {
      placement.huge_pages = true;
    } else if (std::strcmp(argv[1], "--staggered") == 0) {
      placement.staggered = true;
    } else {
      argc = 0;  // unknown flag: usage
      break;
    }
  }
  if (argc < 6 || (argc - 4) % 2) {
    std::fprintf(stderr,
                 "usage: onednn_layer_norm [--huge-pages] [--staggered] THREADS REPS float32|bfloat16 M N [M N ...]\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]), reps = std::atoi(argv[2]);
  const DType dtype = std::strcmp(argv[3], "bfloat16") == 0 ? DType::kBFloat16 : DType::kFloat32;
  omp_set_num_threads(threads);
  SetNumThreads(threads);
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const float eps = 1e-5f;
  for (int a = 4; a + 1 < argc; a += 2) {
    const int64_t M = std::atoll(argv[a]), N = std::atoll(argv[a + 1]);
    const Problem problem(Op::kLayerNormBackward, dtype, {M, N}, ProblemSeed(Op::kLayerNormBackward, dtype),
                          placement);
    const LayerNormBackwardArgs& args = problem.layer_norm_args();
    const ref::NormGrads want = ref::LayerNormBackward(args);

    // gradops on these inputs.
    Plan plan;
    if (!PlanLayerNormBackward(args, &plan).ok()) return 1;
    std::vector<unsigned char> ws(plan.workspace_bytes());
    const double g_ms = ColdMedianMs(reps, [&] { Run(plan, ws.data(), ws.size()); });
    Report("gradops", dtype, M, N, threads, g_ms, problem.bytes_moved(), ref::Read(args.dx), ref::Read(args.dgamma),
           ref::Read(args.dbeta), want);

    // oneDNN: variance from rstd, float32 scale/shift and statistics.
    const memory::data_type dt = dtype == DType::kBFloat16 ? memory::data_type::bf16 : memory::data_type::f32;
    const memory::desc data_md({M, N}, dt, memory::format_tag::ab);
    const memory::desc stat_md({M}, memory::data_type::f32, memory::format_tag::a);
    const memory::desc scale_md({N}, memory::data_type::f32, memory::format_tag::a);
    const auto flags = normalization_flags::use_scale | normalization_flags::use_shift;
    layer_normalization_backward::primitive_desc bwd_pd;
    try {
      const auto fwd_pd = layer_normalization_forward::primitive_desc(
          layer_normalization_forward::desc(prop_kind::forward_training, data_md, stat_md, eps, flags), eng);
      bwd_pd = layer_normalization_backward::primitive_desc(
          layer_normalization_backward::desc(prop_kind::backward, data_md, data_md, stat_md, eps, flags), eng, fwd_pd);
    } catch (const dnnl::error& e) {
      std::printf("{\"system\": \"onednn\", \"op\": \"layer_norm_backward\", \"dtype\": \"%s\", "
                  "\"shape\": [%lld, %lld], \"threads\": %d, \"unsupported\": \"%s\"}\n",
                  DTypeName(dtype), static_cast<long long>(M), static_cast<long long>(N), threads, e.what());
      std::fflush(stdout);
      continue;
    }
    memory src(data_md, eng, args.x.data), diff_dst(data_md, eng, args.dy.data);
    memory mean(stat_md, eng, args.mean.data), variance(stat_md, eng), scale(scale_md, eng), shift(scale_md, eng);
    memory diff_src(data_md, eng, args.dx.data), diff_scale(scale_md, eng), diff_shift(scale_md, eng);
    float* var = static_cast<float*>(variance.get_data_handle());
    const std::vector<double> rstd = ref::Read(args.rstd), gamma = ref::Read(*args.gamma);
    for (int64_t m = 0; m < M; ++m) var[m] = static_cast<float>(1.0 / (rstd[m] * rstd[m]) - eps);
    float* sc = static_cast<float*>(scale.get_data_handle());
    float* sh = static_cast<float*>(shift.get_data_handle());
    for (int64_t n = 0; n < N; ++n) {
      sc[n] = static_cast<float>(gamma[n]);
      sh[n] = 0.0f;
    }
    layer_normalization_backward bwd(bwd_pd);
    const double d_ms = ColdMedianMs(reps, [&] {
      bwd.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_MEAN, mean},
                         {DNNL_ARG_VARIANCE, variance}, {DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, shift},
                         {DNNL_ARG_DIFF_SRC, diff_src}, {DNNL_ARG_DIFF_SCALE, diff_scale},
                         {DNNL_ARG_DIFF_SHIFT, diff_shift}});
      strm.wait();
    });
    TensorView dx_view = Contiguous(diff_src.get_data_handle(), dtype, {M, N});
    const float* dsc = static_cast<const float*>(diff_scale.get_data_handle());
    const float* dsh = static_cast<const float*>(diff_shift.get_data_handle());
    Report("onednn", dtype, M, N, threads, d_ms, problem.bytes_moved(), ref::Read(dx_view),
           Floats(std::vector<float>(dsc, dsc + N)), Floats(std::vector<float>(dsh, dsh + N)), want);
  }
  return 0;
}
