// RunNorm: the launches of one CUDA norm problem, in stream order: gamma to
// float32, the row kernel (or the general kernel), the finalize.
#include <cuda_runtime.h>

#include "cuda/cuda_backend.h"
#include "cuda/norm_launch.h"

namespace gradops {
namespace cuda {

int RunNorm(const cpu::NormProblem& p, const NormSchedule& s, void* workspace, void* stream_ptr) {
  if (s.path == NormPath::kNone) return 0;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  char* ws = static_cast<char*>(workspace);
  float* gamma = s.prepare_gamma ? reinterpret_cast<float*>(ws + s.gamma_offset) : nullptr;
  float* partials = s.finalize ? reinterpret_cast<float*>(ws + s.partial_offset) : nullptr;

  if (s.prepare_gamma) {
    GammaParams g;
    g.gamma = p.gamma;
    g.has_gamma = p.has_gamma;
    g.N = p.N;
    g.out = gamma;
    if (const cudaError_t e = LaunchPrepareGamma(g, stream)) return e;
  }
  if (p.M > 0 && s.grid > 0) {
    NormOperands op;
    op.M = p.M;
    op.N = p.N;
    op.inv_n = p.inv_n;
    op.has_a = cpu::HasA(p.kind);
    op.has_c = cpu::HasC(p.kind);
    op.want_dx = p.want_dx;
    op.want_res = p.want_res;
    op.x = p.x;
    op.dy = p.dy;
    op.dx = p.dx;
    op.res = p.res;
    op.mean = p.mean;
    op.rstd = p.rstd;
    op.rstd_is_variance = p.rstd_is_variance;
    op.epsilon = p.epsilon;
    op.gamma = gamma;
    op.partials = partials;
    op.chunk_rows = s.chunk_rows;
    op.chunks = s.chunks;
    cudaError_t e;
    if (s.path == NormPath::kRows) {
      NormRowsParams rows;
      rows.op = op;
      rows.group_threads = s.group_threads;
      rows.cluster = s.cluster;
      e = LaunchNormRows(rows, p.x.dtype, s.vectors, s.grid, s.block_threads, stream);
    } else {
      NormGeneralParams general;
      general.op = op;
      e = LaunchNormGeneral(general, s.grid, s.block_threads, stream);
    }
    if (e != cudaSuccess) return e;
  }
  if (s.finalize) {
    FinalizeParams f;
    f.partials = partials;
    f.chunks = s.chunks;
    f.N = p.N;
    f.want[0] = p.want_dgamma;
    f.want[1] = p.want_dbeta;
    f.out[0] = p.dgamma;
    f.out[1] = p.dbeta;
    if (const cudaError_t e = LaunchFinalize(f, stream)) return e;
  }
  return 0;
}

}  // namespace cuda
}  // namespace gradops
