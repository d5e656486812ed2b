// `gradops bench --device cuda`: the device-to-device copy ceiling, then
// every operator on the GPU benchmark shapes (bf16, fp32; inputs of 64M
// elements, well past the L2), each the median of several rounds of CUDA
// event timings after a warm-up. Prints a table, or JSON. Without the CUDA
// backend it says so and fails.
#include <cstdio>
#include <string>
#include <vector>

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

  std::vector<std::vector<int64_t>> norm_shapes = {{65536, 1024}, {16384, 4096}, {8192, 8192}, {4096, 16384},
                                                   {1024, 65536}};
  std::vector<std::vector<int64_t>> silu_shapes = {{int64_t{1} << 26}, {int64_t{1} << 28}};
  std::vector<DType> dtypes = {DType::kBFloat16, DType::kFloat32};
  if (options.quick) {
    norm_shapes = {{65536, 1024}, {1024, 65536}};
    silu_shapes = {{int64_t{1} << 26}};
  }
  struct Case {
    Op op;
    std::vector<int64_t> shape;
  };
  std::vector<Case> cases;
  for (Op op : {Op::kLayerNormBackward, Op::kRmsNormBackward, Op::kLayerNormGrad, Op::kLayerNormGradBeta}) {
    for (const auto& shape : norm_shapes) cases.push_back({op, shape});
  }
  for (const auto& shape : silu_shapes) cases.push_back({Op::kSiluBackward, shape});

  if (options.json) {
    std::printf("[\n");
  } else {
    std::printf("%-22s %-9s %-11s %10s %8s %7s\n", "operator", "dtype", "shape", "ms", "GB/s", "ratio");
  }
  bool first = true;
  uint64_t seed = 1;
  for (const Case& c : cases) {
    if (!options.filter.empty() && std::string(OpName(c.op)).find(options.filter) == std::string::npos) continue;
    for (DType dtype : dtypes) {
      Problem problem(c.op, dtype, c.shape, seed++);
      problem.Relocate(ToDevice);
      Plan plan;
      const Status s = problem.MakePlan(&plan);
      if (!s.ok()) {
        std::fprintf(stderr, "bench: %s\n", s.message().c_str());
        return 1;
      }
      RunJob job{&plan, plan.workspace_bytes() ? cuda::DeviceAlloc(plan.workspace_bytes()) : nullptr};
      const double ms = cuda::TimeMs([](void* j) {
        const RunJob* r = static_cast<const RunJob*>(j);
        Run(*r->plan, r->workspace, r->plan->workspace_bytes());
      }, &job, 10, 7);
      std::string error;
      const bool ok = cuda::Synchronize(&error) && cuda::TakeLastRunError() == 0;
      cuda::DeviceFree(job.workspace);
      FreeDeviceBuffers();
      if (!ok) {
        std::fprintf(stderr, "bench: %s %s failed on the device: %s\n", OpName(c.op), DTypeName(dtype), error.c_str());
        return 1;
      }
      const double gbps = problem.bytes_moved() / (ms * 1e6);
      std::string shape_json = "[" + std::to_string(c.shape[0]);
      if (c.shape.size() > 1) shape_json += ", " + std::to_string(c.shape[1]);
      shape_json += "]";
      if (options.json) {
        std::printf("%s  {\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": %s, \"threads\": 1, \"device\": \"cuda\", "
                    "\"ms\": %.4f, \"gbps\": %.2f, \"ceiling_gbps\": %.2f, \"ratio\": %.4f}",
                    first ? "" : ",\n", OpName(c.op), DTypeName(dtype), shape_json.c_str(), ms, gbps, ceiling,
                    gbps / ceiling);
      } else {
        std::printf("%-22s %-9s %-11s %10.4f %8.1f %7.2f\n", OpName(c.op), DTypeName(dtype),
                    ShapeString(c.shape).c_str(), ms, gbps, gbps / ceiling);
      }
      first = false;
    }
  }
  if (options.json) std::printf("\n]\n");
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
