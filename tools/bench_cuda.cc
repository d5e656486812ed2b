// `gradops bench --device cuda`: the device-to-device copy ceiling, then
// every operator on the GPU benchmark shapes (bf16, fp32; inputs of 64M
// elements, well past the L2), each the median of several rounds of CUDA
// event timings after a warm-up. Prints a table, or JSON. Without the CUDA
// backend it says so and fails.
#include <cstdio>
#include <string>
#include <vector>

#include "bench_rows.h"
#include "commands.h"
#include "problems.h"
#if GRADOPS_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace gradops {
namespace tool {

#if GRADOPS_HAVE_CUDA
namespace {

std::vector<void*> device_buffers;

void* ToDevice(const void* data, size_t bytes) {
  void* p = cuda::DeviceAlloc(bytes);
  if (p == nullptr || !cuda::CopyToDevice(p, data, bytes)) {
    std::fprintf(stderr, "bench: device allocation of %zu bytes failed\n", bytes);
    std::exit(1);
  }
  device_buffers.push_back(p);
  return p;
}

void FreeDeviceBuffers() {
  for (void* p : device_buffers) cuda::DeviceFree(p);
  device_buffers.clear();
}

struct CopyJob {
  void* dst;
  const void* src;
  size_t bytes;
};

struct RunJob {
  const Plan* plan;
  void* workspace;
};

// Device-to-device copy, GB/s counting bytes read and written.
double CopyCeiling(size_t bytes) {
  CopyJob job{cuda::DeviceAlloc(bytes), cuda::DeviceAlloc(bytes), bytes};
  cuda::FillOnDevice(const_cast<void*>(job.src), 0x3F, bytes);
  const double ms = cuda::TimeMs([](void* c) {
    const CopyJob* j = static_cast<const CopyJob*>(c);
    cuda::CopyOnDevice(j->dst, j->src, j->bytes);
  }, &job, 10, 7);
  cuda::DeviceFree(job.dst);
  cuda::DeviceFree(const_cast<void*>(job.src));
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

}  // namespace

int RunBenchCuda(const BenchOptions& options) {
  if (cuda::DeviceCount() == 0) {
    std::fprintf(stderr, "bench: no CUDA device\n");
    return 1;
  }
  const double ceiling = CopyCeiling(size_t{1} << 30);
  if (!options.json) std::printf("device-to-device copy ceiling: %.1f GB/s\n", ceiling);

  std::vector<BenchCase> cases =
      options.quick ? BenchCases({{65536, 1024}, {1024, 65536}}, {{int64_t{1} << 26}})
                    : BenchCases({{65536, 1024}, {16384, 4096}, {8192, 8192}, {4096, 16384}, {1024, 65536}},
                                 {{int64_t{1} << 26}, {int64_t{1} << 28}});
  std::vector<BenchRow> rows;
  if (!options.json) PrintRowHeader();
  for (const BenchCase& c : cases) {
    if (!options.filter.empty() && std::string(OpName(c.op)).find(options.filter) == std::string::npos) continue;
    for (DType dtype : {DType::kBFloat16, DType::kFloat32}) {
      Problem problem(c.op, dtype, c.shape, ProblemSeed(c.op, dtype));
      problem.Relocate(ToDevice);
      Plan plan;
      const Status s = problem.MakePlan(&plan);
      if (!s.ok()) {
        std::fprintf(stderr, "bench: %s\n", s.message().c_str());
        return 1;
      }
      RunJob job{&plan, plan.workspace_bytes() ? cuda::DeviceAlloc(plan.workspace_bytes()) : nullptr};
      const Status ran = Run(plan, job.workspace, plan.workspace_bytes());  // launch errors, once
      const double ms = cuda::TimeMs([](void* j) {
        const RunJob* r = static_cast<const RunJob*>(j);
        Run(*r->plan, r->workspace, r->plan->workspace_bytes());
      }, &job, 10, 7);
      std::string error = ran.message();
      const bool ok = ran.ok() && cuda::Synchronize(&error);
      cuda::DeviceFree(job.workspace);
      FreeDeviceBuffers();
      if (!ok) {
        std::fprintf(stderr, "bench: %s %s failed on the device: %s\n", OpName(c.op), DTypeName(dtype), error.c_str());
        return 1;
      }
      const BenchRow r{c.op, dtype, c.shape, 1, "cuda", ms, problem.bytes_moved() / (ms * 1e6), ceiling};
      rows.push_back(r);
      if (!options.json) PrintRow(r);
    }
  }
  if (options.json) PrintJson(rows);
  return 0;
}

#else

int RunBenchCuda(const BenchOptions&) {
  std::fprintf(stderr, "bench: this gradops was built without the CUDA backend (GRADOPS_CUDA=OFF or no nvcc)\n");
  return 2;
}

#endif

}  // namespace tool
}  // namespace gradops
