// The host-side schedules of the CUDA backend, on the CPU: which path a
// problem takes, the row-group shape, chunks that depend on the shape alone
// (never on the device), grids that fit the device, workspace layout.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda/norm_schedule.h"
#include "cuda/silu_schedule.h"

namespace gradops {
namespace cuda {
namespace {

DeviceInfo Hopper() {
  DeviceInfo d;
  d.sm_count = 132;
  d.cc_major = 9;
  return d;
}

DeviceInfo Ampere() {
  DeviceInfo d;
  d.sm_count = 108;
  d.cc_major = 8;
  return d;
}

// Contiguous M x N operands at 16-byte aligned fake addresses (never read).
struct Problem {
  cpu::NormProblem p;
  Problem(int64_t M, int64_t N, DType dtype, cpu::NormKind kind = cpu::NormKind::kLayerNorm) {
    const int64_t shape[2] = {M, N}, strides[2] = {N, 1};
    auto matrix = [&](uintptr_t address) {
      cpu::MatrixOperand m;
      m.data = reinterpret_cast<void*>(address);
      m.dtype = dtype;
      m.rows = MakeLayout(shape, strides, 0, 1);
      m.cols = MakeLayout(shape, strides, 1, 2);
      return m;
    };
    p.kind = kind;
    p.M = M;
    p.N = N;
    p.inv_n = 1.0f / static_cast<float>(N);
    p.x = matrix(0x100000);
    p.dy = matrix(0x200000);
    p.dx = matrix(0x300000);
    p.res = matrix(0x400000);
    p.want_dx = kind != cpu::NormKind::kColumnSums;
    p.want_res = kind == cpu::NormKind::kLayerNormGrad;
    p.want_dgamma = kind != cpu::NormKind::kLayerNormGrad;
    p.want_dbeta = kind == cpu::NormKind::kLayerNorm || kind == cpu::NormKind::kColumnSums;
  }
};

TEST(CudaNormSchedule, NarrowRowsShareAWarp) {
  const NormSchedule s = ScheduleNorm(Problem(65536, 128, DType::kBFloat16).p, Hopper());
  EXPECT_EQ(s.path, NormPath::kRows);
  EXPECT_EQ(s.vector_elems, 8);
  EXPECT_EQ(s.group_threads * s.vectors * s.vector_elems, 128);
  EXPECT_LT(s.group_threads, 32);
  EXPECT_EQ(s.block_threads, kRowsSmallGroupBlock);
  EXPECT_EQ(s.cluster, 1);
}

TEST(CudaNormSchedule, RowOfAWarp) {
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    const NormSchedule s = ScheduleNorm(Problem(65536, 1024, dtype).p, Hopper());
    EXPECT_EQ(s.path, NormPath::kRows);
    EXPECT_EQ(s.group_threads, 32);
    EXPECT_GE(int64_t{s.group_threads} * s.vectors * s.vector_elems, 1024);
  }
}

TEST(CudaNormSchedule, WideRowsUseACtaThenAClusterOnHopper) {
  const NormSchedule cta = ScheduleNorm(Problem(4096, 8192, DType::kBFloat16).p, Hopper());
  EXPECT_EQ(cta.path, NormPath::kRows);
  EXPECT_EQ(cta.cluster, 1);
  EXPECT_EQ(cta.block_threads, cta.group_threads);
  EXPECT_GT(cta.group_threads, 32);

  const NormSchedule wide = ScheduleNorm(Problem(1024, 65536, DType::kBFloat16).p, Hopper());
  EXPECT_EQ(wide.path, NormPath::kRows);
  EXPECT_GT(wide.cluster, 1);
  EXPECT_LE(wide.cluster, kMaxCluster);
  EXPECT_EQ(wide.grid % wide.cluster, 0);
  EXPECT_GE(int64_t{wide.cluster} * wide.group_threads * wide.vectors * wide.vector_elems, 65536);

  // Ampere has no clusters: rows past one CTA take the general path.
  const NormSchedule ampere = ScheduleNorm(Problem(1024, 65536, DType::kBFloat16).p, Ampere());
  EXPECT_EQ(ampere.cluster, 1);
  EXPECT_EQ(ampere.path, NormPath::kGeneral);
  const NormSchedule fits = ScheduleNorm(Problem(1024, 8192, DType::kBFloat16).p, Ampere());
  EXPECT_EQ(fits.path, NormPath::kRows);
  EXPECT_EQ(fits.cluster, 1);
}

TEST(CudaNormSchedule, RowsTooWideForAClusterTakeTheGeneralPath) {
  const NormSchedule s = ScheduleNorm(Problem(8, 262144, DType::kFloat32).p, Hopper());
  EXPECT_EQ(s.path, NormPath::kGeneral);
  EXPECT_LE(s.chunk_rows, kGeneralMaxChunkRows);
}

TEST(CudaNormSchedule, EveryVectorCountIsAKernel) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (int64_t N = 4; N <= 131072; N = N * 3 / 2 + 4) {
      Problem pr(64, N / 8 * 8 + 8, dtype);
      const NormSchedule s = ScheduleNorm(pr.p, Hopper());
      if (s.path != NormPath::kRows) continue;
      SCOPED_TRACE(pr.p.N);
      const int most = s.vector_elems == 4 ? 8 : 4;
      EXPECT_TRUE(s.vectors == 1 || s.vectors == 2 || s.vectors == 4 || s.vectors == 8);
      EXPECT_LE(s.vectors, most);
      EXPECT_EQ(s.group_threads & (s.group_threads - 1), 0);
      EXPECT_LE(s.block_threads, s.vectors * s.vector_elems >= 32 ? 256 : kRowsMaxGroup);  // launch bounds
      EXPECT_EQ(s.block_threads % s.group_threads, 0);
      EXPECT_GE(int64_t{s.cluster} * s.group_threads * s.vectors * s.vector_elems, pr.p.N);
    }
  }
}

TEST(CudaNormSchedule, MisalignedOrStridedRowsTakeTheGeneralPath) {
  Problem odd(100, 1001, DType::kFloat32);  // rows not 16-byte aligned
  EXPECT_FALSE(RowsPathApplies(odd.p));
  EXPECT_EQ(ScheduleNorm(odd.p, Hopper()).path, NormPath::kGeneral);

  Problem shifted(100, 1024, DType::kFloat32);
  shifted.p.x.data = reinterpret_cast<void*>(0x100004);
  EXPECT_FALSE(RowsPathApplies(shifted.p));

  Problem strided(100, 1024, DType::kBFloat16);
  strided.p.dy.cols.stride[0] = 2;
  EXPECT_FALSE(RowsPathApplies(strided.p));

  Problem mixed(100, 1024, DType::kBFloat16);
  mixed.p.dx.dtype = DType::kFloat32;  // float32 dx from bfloat16 inputs
  EXPECT_FALSE(RowsPathApplies(mixed.p));

  Problem broadcast(100, 1024, DType::kBFloat16);  // every row is row 0: fine
  broadcast.p.x.rows.stride[0] = 0;
  EXPECT_TRUE(RowsPathApplies(broadcast.p));
}

// The chunking, and so the order of every float32 sum, depends on the
// problem alone: the same on any device.
TEST(CudaNormSchedule, ChunksIndependentOfTheDevice) {
  for (int64_t M : {1, 7, 100, 4097, 65536, 1 << 20}) {
    for (int64_t N : {8, 1024, 4096, 16384}) {
      for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
        Problem pr(M, N, dtype);
        DeviceInfo small = Hopper();
        small.sm_count = 2;
        const NormSchedule a = ScheduleNorm(pr.p, Hopper()), b = ScheduleNorm(pr.p, small);
        EXPECT_EQ(a.chunk_rows, b.chunk_rows);
        EXPECT_EQ(a.chunks, b.chunks);
        EXPECT_EQ(a.group_threads, b.group_threads);
        EXPECT_EQ(a.vectors, b.vectors);
        EXPECT_EQ(a.workspace_bytes, b.workspace_bytes);
        EXPECT_GE(a.chunks * a.chunk_rows, M);
        EXPECT_LT((a.chunks - 1) * a.chunk_rows, M);
        EXPECT_LE(b.grid, 2 * 2048 / b.block_threads * b.cluster);
        EXPECT_GE(b.grid, b.cluster);
      }
    }
  }
}

TEST(CudaNormSchedule, GridPersistentAndNeverLargerThanTheWork) {
  const NormSchedule many = ScheduleNorm(Problem(1 << 20, 8192, DType::kBFloat16).p, Hopper());
  EXPECT_EQ(many.block_threads, 512);
  EXPECT_EQ(many.grid, 132 * 2048 / 512);
  EXPECT_LT(many.grid, many.chunks);
  const NormSchedule few = ScheduleNorm(Problem(3, 1024, DType::kBFloat16).p, Hopper());
  EXPECT_EQ(few.grid, few.chunks * few.cluster);
}

TEST(CudaNormSchedule, WorkspaceHoldsGammaAndPartials) {
  Problem pr(5000, 1000, DType::kFloat32);
  const NormSchedule s = ScheduleNorm(pr.p, Hopper());
  EXPECT_TRUE(s.prepare_gamma);
  EXPECT_TRUE(s.finalize);
  EXPECT_EQ(s.gamma_offset % 256, 0u);
  EXPECT_EQ(s.partial_offset % 256, 0u);
  EXPECT_GE(s.partial_offset, 1000 * sizeof(float));
  EXPECT_GE(s.workspace_bytes, s.partial_offset + static_cast<size_t>(s.chunks) * 2 * 1000 * sizeof(float));

  Problem dx_only(5000, 1000, DType::kFloat32);
  dx_only.p.want_dgamma = dx_only.p.want_dbeta = false;
  const NormSchedule d = ScheduleNorm(dx_only.p, Hopper());
  EXPECT_FALSE(d.finalize);
  EXPECT_EQ(d.workspace_bytes, 1024 * sizeof(float));

  Problem sums(5000, 1000, DType::kBFloat16, cpu::NormKind::kColumnSums);
  EXPECT_FALSE(ScheduleNorm(sums.p, Hopper()).prepare_gamma);
}

TEST(CudaNormSchedule, NothingToDo) {
  Problem empty(10, 0, DType::kFloat32);
  EXPECT_EQ(ScheduleNorm(empty.p, Hopper()).path, NormPath::kNone);
  EXPECT_EQ(ScheduleNorm(empty.p, Hopper()).workspace_bytes, 0u);
  Problem none(10, 64, DType::kFloat32);
  none.p.want_dx = none.p.want_dgamma = none.p.want_dbeta = false;
  EXPECT_EQ(ScheduleNorm(none.p, Hopper()).path, NormPath::kNone);
  // No rows: only the finalize runs (zeros into dgamma/dbeta).
  const NormSchedule rows0 = ScheduleNorm(Problem(0, 64, DType::kFloat32).p, Hopper());
  EXPECT_EQ(rows0.chunks, 0);
  EXPECT_EQ(rows0.grid, 0);
  EXPECT_TRUE(rows0.finalize);
}

cpu::SiluProblem Silu(int64_t n, DType dtype, uintptr_t address = 0x100000) {
  cpu::SiluProblem p;
  p.rank = 1;
  p.size[0] = n;
  p.numel = n;
  for (int k = 0; k < 3; ++k) {
    p.stride[k][0] = 1;
    p.data[k] = reinterpret_cast<void*>(address + 0x100000 * k);
    p.dtype[k] = dtype;
  }
  return p;
}

TEST(CudaSiluSchedule, VectorPathOnlyForAlignedUnitStrides) {
  const SiluSchedule v = ScheduleSilu(Silu(1 << 26, DType::kBFloat16), Hopper());
  EXPECT_TRUE(v.vector);
  EXPECT_EQ(v.vector_elems, 8);
  EXPECT_LE(v.grid, 132 * 2048 / kSiluBlock);
  EXPECT_FALSE(ScheduleSilu(Silu(1000, DType::kFloat32, 0x100002), Hopper()).vector);
  cpu::SiluProblem broadcast = Silu(1000, DType::kFloat32);
  broadcast.stride[0][0] = 0;
  EXPECT_FALSE(ScheduleSilu(broadcast, Hopper()).vector);
  cpu::SiluProblem mixed = Silu(1000, DType::kBFloat16);
  mixed.dtype[2] = DType::kFloat32;
  EXPECT_FALSE(ScheduleSilu(mixed, Hopper()).vector);
  EXPECT_EQ(ScheduleSilu(Silu(0, DType::kFloat32), Hopper()).grid, 0);
  EXPECT_EQ(ScheduleSilu(Silu(3, DType::kFloat32), Hopper()).grid, 1);
}

}  // namespace
}  // namespace cuda
}  // namespace gradops
