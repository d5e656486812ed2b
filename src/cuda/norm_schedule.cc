// Host-side scheduling of the CUDA norm core (see norm_schedule.h).
#include "cuda/norm_schedule.h"

#include <algorithm>
#include <cstdint>

namespace gradops {
namespace cuda {
namespace {

constexpr size_t kAlign = 256;
size_t AlignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t NextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Every row of `m` starts on a 16-byte boundary and runs with unit stride.
bool AlignedRows(const cpu::MatrixOperand& m, DType dtype) {
  if (m.dtype != dtype || !m.cols.unit()) return false;
  const int64_t elem = static_cast<int64_t>(DTypeSize(dtype));
  if (reinterpret_cast<uintptr_t>(m.data) % 16 != 0) return false;
  for (int d = 0; d < m.rows.rank; ++d) {
    if ((m.rows.stride[d] * elem) % 16 != 0) return false;
  }
  return true;
}

// Row-group shape of the row kernel; false when a row is too wide for it.
bool ChooseRowGroups(int64_t vectors_per_row, int vector_elems, const DeviceInfo& device, NormSchedule* s) {
  const int64_t nv = vectors_per_row;
  const int base = 16 / vector_elems;  // 16 values per thread and tensor: fp32 4 vectors, 16-bit 2
  const int most = std::min(2 * base, kRowsMaxVectors);
  int64_t group = NextPow2(CeilDiv(nv, base));
  if (group > 32 && nv <= 32 * most) group = 32;  // a warp per row up to `most` vectors a thread
  s->cluster = 1;
  if (group <= 32) {
    s->group_threads = static_cast<int>(group);
    s->block_threads = kRowsSmallGroupBlock;
    s->vectors = static_cast<int>(NextPow2(CeilDiv(nv, group)));
    return true;
  }
  if (group <= kRowsMaxGroup) {
    s->group_threads = s->block_threads = static_cast<int>(group);
    s->vectors = static_cast<int>(NextPow2(CeilDiv(nv, group)));
    return true;
  }
  // Wider than one CTA: split the row over a cluster (Hopper). Holding more
  // vectors per thread would not help: the register file caps a CTA at
  // kRowsMaxGroup * 16 values.
  const int64_t ctas = CeilDiv(nv, int64_t{kRowsMaxGroup} * base);
  if (ctas > 1 && !(device.clusters() && ctas <= kMaxCluster)) return false;
  s->group_threads = s->block_threads = kRowsMaxGroup;
  s->cluster = static_cast<int>(ctas);
  s->vectors = static_cast<int>(NextPow2(CeilDiv(nv, int64_t{kRowsMaxGroup} * ctas)));
  return true;
}

}  // namespace

bool RowsPathApplies(const cpu::NormProblem& p) {
  const DType dtype = p.x.dtype;
  const int64_t vector_elems = 16 / static_cast<int64_t>(DTypeSize(dtype));
  if (p.N <= 0 || p.N % vector_elems != 0) return false;
  if (!AlignedRows(p.x, dtype) || !AlignedRows(p.dy, dtype)) return false;
  if (p.want_dx && !AlignedRows(p.dx, dtype)) return false;
  if (p.want_res && !AlignedRows(p.res, dtype)) return false;
  return true;
}

NormSchedule ScheduleNorm(const cpu::NormProblem& p, const DeviceInfo& device) {
  NormSchedule s;
  const bool want_acc = p.want_dgamma || p.want_dbeta;
  if (p.N == 0 || (!p.want_dx && !p.want_res && !want_acc)) return s;

  const int64_t sm_count = std::max(1, device.sm_count);
  int64_t groups_per_block = 1;
  s.path = NormPath::kGeneral;
  if (RowsPathApplies(p)) {
    s.vector_elems = 16 / static_cast<int>(DTypeSize(p.x.dtype));
    if (ChooseRowGroups(p.N / s.vector_elems, s.vector_elems, device, &s)) {
      s.path = NormPath::kRows;
      groups_per_block = s.block_threads / s.group_threads;
    }
  }
  // Chunks: about 1024 of them (enough to fill any GPU), a function of the
  // shape alone; with partials, at least 32 rows each so that the partials
  // stay a few percent of the traffic.
  const int64_t per_chunk = CeilDiv(p.M, 1024);
  if (s.path == NormPath::kRows) {
    s.chunk_rows = std::max(per_chunk, want_acc ? std::max<int64_t>(32, 2 * groups_per_block) : groups_per_block);
  } else {
    s.vector_elems = s.vectors = s.group_threads = s.cluster = 1;
    s.block_threads = kGeneralBlock;
    s.chunk_rows = std::clamp<int64_t>(per_chunk, 16, kGeneralMaxChunkRows);
  }
  s.chunks = CeilDiv(p.M, s.chunk_rows);

  // A persistent grid: at most as many CTAs (clusters) as fit on the device.
  const int64_t ctas_per_sm = std::clamp<int64_t>(device.max_threads_per_sm / s.block_threads, 1, 32);
  const int64_t resident_units = std::max<int64_t>(1, sm_count * ctas_per_sm / s.cluster);
  s.grid = std::min(s.chunks, resident_units) * s.cluster;

  s.prepare_gamma = p.want_dx;
  s.finalize = want_acc;
  const size_t n = static_cast<size_t>(p.N);
  size_t bytes = 0;
  s.gamma_offset = bytes;
  if (s.prepare_gamma) bytes += AlignUp(n * sizeof(float));
  s.partial_offset = bytes;
  if (want_acc) bytes += AlignUp(static_cast<size_t>(s.chunks) * 2 * n * sizeof(float));
  s.workspace_bytes = bytes;
  return s;
}

}  // namespace cuda
}  // namespace gradops
