// Blocks of a launch: one thread each, with a thread-local BlockContext
// holding the block's index and UB; diagnostics name that context.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "block_context.h"
#include "gradops_ascendc/kernel_macros.h"
#include "gradops_ascendc/launch.h"
#include "gradops_ascendc/runtime.h"

namespace gradops {
namespace ascendc {
namespace {

thread_local BlockContext* t_block = nullptr;
std::atomic<KernelMode> g_mode{KernelMode::AIV_MODE};
std::atomic<uint64_t> g_tiling_key{0};

// The UB's contents before the kernel writes: all ones, which reads as NaN
// in half and float, so that reading unwritten UB shows in the results.
constexpr uint8_t kUbFill = 0xFF;

struct UbDeleter {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(64)); }
};

void RunBlock(BlockContext* block, const std::function<void()>& body) {
  std::unique_ptr<uint8_t[], UbDeleter> ub(new (std::align_val_t(64)) uint8_t[kUbCapacity]);
  std::fill(ub.get(), ub.get() + kUbCapacity, kUbFill);
  block->ub = ub.get();
  t_block = block;
  body();
  t_block = nullptr;
}

}  // namespace

BlockContext* CurrentBlockOrNull() { return t_block; }

BlockContext& CurrentBlock(const char* api) {
  if (t_block == nullptr) Fail(api, "called outside a kernel launched with ICPU_RUN_KF");
  return *t_block;
}

void Fail(const std::string& rule, const std::string& detail) {
  std::string where = "host code";
  if (t_block != nullptr) {
    where = std::string("kernel '") + t_block->kernel + "', block " + std::to_string(t_block->idx) + " of " +
            std::to_string(t_block->num);
  }
  std::fprintf(stderr, "AscendC error: %s: %s: %s\n", where.c_str(), rule.c_str(), detail.c_str());
  std::fflush(stderr);
  std::_Exit(EXIT_FAILURE);
}

int64_t CurrentBlockIdx() { return CurrentBlock("GetBlockIdx").idx; }
int64_t CurrentBlockNum() { return CurrentBlock("GetBlockNum").num; }
bool IsCubeCore() { return CurrentBlock("ASCEND_IS_AIC").cube; }
bool IsVectorCore() { return !CurrentBlock("ASCEND_IS_AIV").cube; }

uint8_t* UbBase() { return CurrentBlock("UB access").ub; }
uint32_t UbReserved() { return CurrentBlock("UB access").reserved; }
uint32_t UbFree() { return kUbCapacity - UbReserved(); }

void SetTilingKey(uint64_t key) { g_tiling_key = key; }
uint64_t TilingKey() { return g_tiling_key; }

void RunBlocks(const char* kernel, int64_t block_dim, const std::function<void()>& body) {
  if (t_block != nullptr) Fail("ICPU_RUN_KF", std::string("launch of '") + kernel + "' from inside a kernel");
  if (block_dim < 1 || block_dim > 65535) {
    Fail("ICPU_RUN_KF", std::string("kernel '") + kernel + "': blockDim " + std::to_string(block_dim) +
                            " is outside [1, 65535]");
  }
  const KernelMode mode = g_mode;
  if (mode == KernelMode::MIX_MODE) {
    Fail("SetKernelMode", std::string("kernel '") + kernel +
                              "': MIX_MODE is not provided; launch vector kernels in AIV_MODE, cube kernels in AIC_MODE");
  }
  std::vector<BlockContext> blocks(static_cast<size_t>(block_dim));
  std::vector<std::thread> threads;
  threads.reserve(blocks.size());
  for (int64_t i = 0; i < block_dim; ++i) {
    BlockContext& b = blocks[static_cast<size_t>(i)];
    b.kernel = kernel;
    b.idx = i;
    b.num = block_dim;
    b.cube = mode == KernelMode::AIC_MODE;
    threads.emplace_back(RunBlock, &b, std::cref(body));
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace ascendc
}  // namespace gradops

namespace AscendC {
void SetKernelMode(KernelMode mode) { gradops::ascendc::g_mode = mode; }
}  // namespace AscendC
