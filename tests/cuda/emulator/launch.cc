// Kernel launches of the CUDA emulation: every thread of a cluster's CTAs
// is a fiber on its own stack, switched only at barriers, scheduled in one
// of four orders; static shared memory is a linker section saved per CTA.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/sanitizers.h"
#include "emulator.h"
#include "internal.h"

// Bounds of the section that holds every static __shared__ variable
// (cuda_runtime.h); weak, so that a program without kernels links too.
extern "C" __attribute__((weak)) char __start_gradops_emulated_shared[];
extern "C" __attribute__((weak)) char __stop_gradops_emulated_shared[];

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

namespace cuda_emulator {
namespace {

constexpr size_t kMaxDynamicShared = 48 << 10;  // without the opt-in attribute
constexpr size_t kDynamicGuard = 256;           // guard bytes after dynamic shared memory
constexpr int kWarp = 32;

struct Cluster;
Cluster* running = nullptr;  // the cluster of the launch in progress

// ---- Stack switching (x86-64 System V) -----------------------------------
// A suspended context is its stack pointer, below its callee-saved
// registers. gradops_emulator_switch saves the running context into *from
// and resumes `to`. MXCSR and the x87 control word are shared by all
// contexts: nothing in a kernel changes them.
extern "C" void gradops_emulator_switch(void** from, void* to);
asm(R"(
  .text
  .p2align 4
  .globl gradops_emulator_switch
  .hidden gradops_emulator_switch
  .type gradops_emulator_switch, @function
gradops_emulator_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size gradops_emulator_switch, .-gradops_emulator_switch
)");

// A context that starts `entry` (which must never return) on a stack whose
// top is `top` (16-byte aligned), as if called.
void* NewContext(char* top, void (*entry)()) {
  void** slot = reinterpret_cast<void**>(top - 16);  // entry's address, 16-byte aligned
  *slot = reinterpret_cast<void*>(entry);
  uint64_t* registers = reinterpret_cast<uint64_t*>(slot) - 6;  // r15 ... rbp, all zero
  std::memset(registers, 0, 6 * sizeof(uint64_t));
  return registers;
}

// ---- Fibers and barriers -------------------------------------------------

struct Barrier {
  int expected = 0, arrived = 0;
  uint64_t generation = 0;
};

struct Cta {
  std::vector<Barrier> warps;
  Barrier all;
  std::vector<uint64_t> slots;  // shuffle values: two per thread, used in turn
  std::vector<char> shared;     // static shared memory while another CTA runs
  std::vector<char> dynamic;    // dynamic_bytes, then kDynamicGuard guard bytes
  size_t dynamic_bytes = 0;
  int unfinished = 0;           // threads still running
};

// The built-in variables of one emulated thread.
struct ThreadState {
  uint3 thread_idx, block_idx;
  dim3 block_dim, grid_dim;
  int cluster_rank = 0, cluster_size = 1;
};

struct Fiber {
  void* context = nullptr;
  char* stack = nullptr;     // lowest address, kStackBytes
  void* fake_stack = nullptr;  // AddressSanitizer's, while suspended
  ThreadState state;
  int cta = 0, linear = 0;  // CTA within the cluster, thread within the CTA
  int shuffles = 0;         // parity picks the shuffle slot
  const Barrier* waiting = nullptr;  // and the generation it waits to pass
  uint64_t waiting_generation = 0;
  bool done = false;
};

struct Cluster {
  std::vector<Cta> ctas;
  std::vector<Fiber> fibers;
  Barrier all;
  int threads_per_cta = 0;
  Fiber* current = nullptr;
  int live_cta = -1;  // whose static shared memory is in the section
  uint64_t events = 0;
  bool failed = false;
  std::string failure;
  const std::function<void()>* body = nullptr;
  void* scheduler = nullptr;
  const void* scheduler_stack = nullptr;  // AddressSanitizer's view of the scheduler's stack
  size_t scheduler_stack_bytes = 0;
  void* scheduler_fake_stack = nullptr;
};

char* SharedBegin() { return __start_gradops_emulated_shared; }
size_t SharedBytes() {
  return __start_gradops_emulated_shared == nullptr
             ? 0
             : static_cast<size_t>(__stop_gradops_emulated_shared - __start_gradops_emulated_shared);
}

Fiber& Current() { return *running->current; }

// AddressSanitizer is told of every stack switch (a no-op without it).
void StartSwitch(void** fake_stack, const void* stack, size_t bytes) {
#ifdef GRADOPS_ASAN
  __sanitizer_start_switch_fiber(fake_stack, stack, bytes);
#endif
}
void FinishSwitch(void* fake_stack, const void** stack, size_t* bytes) {
#ifdef GRADOPS_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, stack, bytes);
#endif
}

// Back to the scheduler; returns when the scheduler resumes this fiber
// (never once it has finished).
void Yield(bool finished = false) {
  Fiber& f = Current();
  Cluster& c = *running;
  StartSwitch(finished ? nullptr : &f.fake_stack, c.scheduler_stack, c.scheduler_stack_bytes);
  gradops_emulator_switch(&f.context, c.scheduler);
  FinishSwitch(f.fake_stack, &c.scheduler_stack, &c.scheduler_stack_bytes);
}

void Resume(Fiber& f) {
  Cluster& c = *running;
  c.current = &f;
  StartSwitch(&c.scheduler_fake_stack, f.stack, kStackBytes);
  gradops_emulator_switch(&c.scheduler, f.context);
  FinishSwitch(c.scheduler_fake_stack, nullptr, nullptr);
}

// Fails the launch from inside an emulated thread, which is never resumed
// (so the message is a plain array: nothing on its stack owns memory).
[[noreturn]] void Abandon(const char* message) {
  running->failed = true;
  running->failure = message;
  Yield();
  std::abort();  // never resumed
}

void Wait(Barrier& b) {
  ++running->events;
  const uint64_t generation = b.generation;
  if (++b.arrived == b.expected) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  Fiber& f = Current();
  f.waiting = &b;
  f.waiting_generation = generation;
  Yield();  // resumed once the barrier's generation has moved on
  f.waiting = nullptr;
}

[[noreturn]] void Entry() {
  FinishSwitch(nullptr, &running->scheduler_stack, &running->scheduler_stack_bytes);
  (*running->body)();
  Current().done = true;
  ++running->events;
  Yield(true);
  std::abort();  // never resumed
}

void MakeLive(int cta) {
  Cluster& c = *running;
  if (c.live_cta == cta) return;
  const size_t bytes = SharedBytes();
  if (bytes != 0) {
    if (c.live_cta >= 0) std::memcpy(c.ctas[c.live_cta].shared.data(), SharedBegin(), bytes);
    std::memcpy(SharedBegin(), c.ctas[cta].shared.data(), bytes);
  }
  c.live_cta = cta;
}

// Shared memory of a CTA whose threads have all finished reads as NaN bytes
// (on a GPU it is gone), and its dynamic shared memory's guard bytes are checked.
void FinishCta(int cta) {
  Cluster& c = *running;
  Cta& t = c.ctas[cta];
  const char* guard = t.dynamic.data() + t.dynamic_bytes;
  if (FirstNot(guard, t.dynamic.data() + t.dynamic.size(), kGuardByte) != nullptr) {
    c.failed = true;
    c.failure = "write past the " + std::to_string(t.dynamic_bytes) + " bytes of dynamic shared memory";
  }
  std::memset(t.dynamic.data(), kPoisonByte, t.dynamic_bytes);
  std::memset(t.shared.data(), kPoisonByte, t.shared.size());
  if (c.live_cta == cta && SharedBytes() != 0) std::memset(SharedBegin(), kPoisonByte, SharedBytes());
}

// Resumes f if it can run; true if it did.
bool Step(Fiber& f) {
  Cluster& c = *running;
  if (c.failed || f.done || (f.waiting != nullptr && f.waiting->generation == f.waiting_generation)) return false;
  MakeLive(f.cta);
  threadIdx = f.state.thread_idx;
  blockIdx = f.state.block_idx;
  blockDim = f.state.block_dim;
  gridDim = f.state.grid_dim;
  Resume(f);
  if (f.done && --c.ctas[f.cta].unfinished == 0) FinishCta(f.cta);
  return true;
}

// Runs every fiber of the cluster to its end; false on a failure. The
// orders: each thread one step at a time, first to last or last to first;
// or each warp as far as it can go (to a CTA or cluster barrier) before the
// next one starts, first to last or last to first, which lets a missing
// barrier between warps show.
bool Schedule(int order) {
  Cluster& c = *running;
  const int n = static_cast<int>(c.fibers.size());
  const bool reverse = order % 2 == 1, warps_ahead = order >= 2;
  const auto at = [&](int k) -> Fiber& { return c.fibers[reverse ? n - 1 - k : k]; };
  const auto unfinished = [&] {
    for (const Fiber& f : c.fibers) {
      if (!f.done) return true;
    }
    return false;
  };
  while (!c.failed && unfinished()) {
    const uint64_t before = c.events;
    if (!warps_ahead) {
      for (int k = 0; k < n; ++k) Step(at(k));
    } else {
      // Fibers are in CTA order, each CTA's in thread order: warps are runs
      // of kWarp (the last of a CTA possibly shorter).
      for (int first = 0; first < n;) {
        const Fiber& head = at(first);
        int last = first;
        while (last + 1 < n && at(last + 1).cta == head.cta && at(last + 1).linear / kWarp == head.linear / kWarp) ++last;
        for (bool moved = true; moved;) {
          moved = false;
          for (int k = first; k <= last; ++k) moved = Step(at(k)) || moved;
        }
        first = last + 1;
      }
    }
    if (!c.failed && c.events == before) {
      c.failed = true;
      c.failure = "deadlock: threads wait at a barrier (__syncthreads, a warp shuffle or cluster.sync) that other "
                  "threads of the cluster never reach";
    }
  }
  return !c.failed;
}

}  // namespace

bool KernelRunning() { return running != nullptr; }

int ClusterRank() { return Current().state.cluster_rank; }
int ClusterSize() { return Current().state.cluster_size; }

void SyncThreads() { Wait(running->ctas[Current().cta].all); }

void SyncCluster() { Wait(running->all); }

void ShuffleXor(void* value, size_t bytes, unsigned member_mask, int lane_mask, int width) {
  Fiber& f = Current();
  Cta& cta = running->ctas[f.cta];
  const int warp = f.linear / kWarp, lane = f.linear % kWarp;
  const int size = std::min(kWarp, running->threads_per_cta - warp * kWarp);
  const unsigned full = size == kWarp ? 0xFFFFFFFFu : (1u << size) - 1u;
  const int partner = lane ^ lane_mask;
  if (width != kWarp || (member_mask & full) != full || partner >= size) {
    char message[160];
    std::snprintf(message, sizeof message, "__shfl_xor_sync(mask %#x, lane mask %d, width %d) in a warp of %d threads",
                  member_mask, lane_mask, width, size);
    Abandon(message);
  }
  // Slots alternate between consecutive shuffles: a lane can write the next
  // shuffle's value only after every lane has reached it, so after every
  // lane has read this one's.
  uint64_t* slots = cta.slots.data() + (f.shuffles++ % 2) * cta.slots.size() / 2 + warp * kWarp;
  std::memcpy(&slots[lane], value, bytes);
  Wait(cta.warps[warp]);
  std::memcpy(value, &slots[partner], bytes);
}

void* DynamicShared() {
  Cta& cta = running->ctas[Current().cta];
  return cta.dynamic_bytes == 0 ? nullptr : cta.dynamic.data();
}

void* MapSharedRank(const void* p, unsigned rank) {
  Cluster& c = *running;
  if (rank >= c.ctas.size()) Abandon("map_shared_rank to a rank past the cluster's last");
  const int here = Current().cta;
  if (static_cast<int>(rank) == here) return const_cast<void*>(p);
  const char* q = static_cast<const char*>(p);
  const std::vector<char>& dynamic = c.ctas[here].dynamic;
  if (q >= dynamic.data() && q < dynamic.data() + c.ctas[here].dynamic_bytes) {
    return c.ctas[rank].dynamic.data() + (q - dynamic.data());
  }
  if (q >= SharedBegin() && q < SharedBegin() + SharedBytes()) {
    // The other CTA is not running: its static shared memory is in its copy.
    return c.ctas[rank].shared.data() + (q - SharedBegin());
  }
  Abandon("map_shared_rank of an address outside shared memory");
}

int Launch(const cudaLaunchConfig_st& config, const std::function<void()>& body, const char* launcher) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  // The kernel named by its parameter types, from the launcher's signature.
  std::string kernel = launcher;
  const size_t with = kernel.find("Expected = ");
  if (with != std::string::npos) kernel = "kernel(" + kernel.substr(with + 11, kernel.find(';', with) - with - 11) + ")";
  static uint64_t launches = 0;
  const dim3 grid = config.gridDim, block = config.blockDim;
  unsigned cluster = 1;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    if (config.attrs[i].id == cudaLaunchAttributeClusterDimension) {
      if (config.attrs[i].val.clusterDim.y != 1 || config.attrs[i].val.clusterDim.z != 1) {
        return Fail(cudaErrorInvalidValue, "clusters other than along x: " + kernel);
      }
      cluster = config.attrs[i].val.clusterDim.x;
      if (cluster == 0) return Fail(cudaErrorInvalidValue, "a cluster of 0 blocks: " + kernel);
    }
  }
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (block.y != 1 || block.z != 1) return Fail(cudaErrorInvalidValue, "blocks other than 1-D: " + kernel);
  if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0) {
    return Fail(cudaErrorInvalidConfiguration, "launch of " + std::to_string(grid.x) + "x" + std::to_string(grid.y) +
                                                   " blocks of " + std::to_string(threads) + " threads: " + kernel);
  }
  if (config.dynamicSmemBytes > kMaxDynamicShared) {
    return Fail(cudaErrorInvalidValue,
                std::to_string(config.dynamicSmemBytes) + " bytes of dynamic shared memory: " + kernel);
  }
  if (cluster > 1 && (ComputeCapability() < 90 || cluster > 8 || grid.x % cluster != 0)) {
    return Fail(cudaErrorInvalidValue, "cluster of " + std::to_string(cluster) + " for a grid of " +
                                           std::to_string(grid.x) + " on compute capability " +
                                           std::to_string(ComputeCapability()) + ": " + kernel);
  }

  static const bool trace = EnvInt("GRADOPS_EMULATED_TRACE", 0) != 0;
  if (trace) {
    std::fprintf(stderr, "[cuda emulator] launch: %ux%u blocks of %u threads, clusters of %u, %zu bytes of dynamic shared memory: %s\n",
                 grid.x, grid.y, block.x, cluster, config.dynamicSmemBytes, kernel.c_str());
  }
  if (!ValidStream(config.stream)) return Fail(cudaErrorInvalidResourceHandle, "launch on an unknown stream: " + kernel);
  const int cta_threads = static_cast<int>(threads);
  const int fibers = static_cast<int>(cluster) * cta_threads;
  if (!ReserveStacks(static_cast<size_t>(fibers))) return Fail(cudaErrorMemoryAllocation, "no memory for emulated threads");
  const int order = static_cast<int>(launches++ % 4);
  for (unsigned z = 0; z < grid.z; ++z) {
    for (unsigned y = 0; y < grid.y; ++y) {
      for (unsigned x0 = 0; x0 < grid.x; x0 += cluster) {
        Cluster c;
        c.body = &body;
        c.threads_per_cta = cta_threads;
        c.all.expected = fibers;
        c.ctas.resize(cluster);
        for (Cta& cta : c.ctas) {
          const int warps = (cta_threads + kWarp - 1) / kWarp;
          cta.warps.resize(warps);
          for (int w = 0; w < warps; ++w) cta.warps[w].expected = std::min(kWarp, cta_threads - w * kWarp);
          cta.all.expected = cta_threads;
          cta.slots.assign(2 * static_cast<size_t>(warps) * kWarp, 0);
          cta.shared.assign(SharedBytes(), static_cast<char>(kPoisonByte));
          cta.dynamic_bytes = config.dynamicSmemBytes;
          cta.dynamic.assign(cta.dynamic_bytes + kDynamicGuard, static_cast<char>(kGuardByte));
          std::memset(cta.dynamic.data(), kPoisonByte, cta.dynamic_bytes);
          cta.unfinished = cta_threads;
        }
        c.fibers.resize(fibers);
        for (int i = 0; i < fibers; ++i) {
          Fiber& f = c.fibers[i];
          f.cta = i / cta_threads;
          f.linear = i % cta_threads;
          f.state.thread_idx = {static_cast<unsigned>(f.linear), 0, 0};
          f.state.block_idx = {x0 + f.cta, y, z};
          f.state.block_dim = block;
          f.state.grid_dim = grid;
          f.state.cluster_rank = f.cta;
          f.state.cluster_size = static_cast<int>(cluster);
          f.stack = Stack(static_cast<size_t>(i));
#ifdef GRADOPS_ASAN
          // A thread abandoned by an earlier launch may have left its frames' redzones poisoned.
          ASAN_UNPOISON_MEMORY_REGION(f.stack + kPage, kStackBytes - kPage);
#endif
          f.context = NewContext(f.stack + kStackBytes, Entry);
        }
        running = &c;
        const bool ok = Schedule(order);
        running = nullptr;
        if (!ok) return Fail(cudaErrorLaunchFailure, c.failure + " (block " + std::to_string(x0) + "," +
                                                         std::to_string(y) + "): " + kernel);
      }
    }
  }
  const std::string corrupted = CorruptedGuards();
  if (!corrupted.empty()) return Fail(cudaErrorIllegalAddress, "out-of-bounds " + corrupted + ": " + kernel);
  return cudaSuccess;
}

}  // namespace cuda_emulator
