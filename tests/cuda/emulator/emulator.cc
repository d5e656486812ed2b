// The CPU emulation of CUDA (see emulator.h): device memory, the runtime
// calls the backend makes, and kernel launches as fibers.
#include "emulator.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "include/cuda_runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#define GRADOPS_EMULATOR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRADOPS_EMULATOR_ASAN 1
#endif
#endif
#ifdef GRADOPS_EMULATOR_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// Bounds of the section that holds every static __shared__ variable
// (cuda_runtime.h); weak, so that a program without kernels links too.
extern "C" __attribute__((weak)) char __start_gradops_emulated_shared[];
extern "C" __attribute__((weak)) char __stop_gradops_emulated_shared[];

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

struct CUstream_st {};
struct CUevent_st {
  std::chrono::steady_clock::time_point time;
};

namespace cuda_emulator {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kAlignment = 256;             // cudaMalloc's alignment
constexpr unsigned char kGuardByte = 0xA5;     // alignment gaps around an allocation
constexpr unsigned char kPoisonByte = 0xFF;    // fresh device and shared memory: NaN
constexpr size_t kStackBytes = 256 << 10;      // per emulated thread
constexpr size_t kMaxDynamicShared = 48 << 10; // without the opt-in attribute
constexpr size_t kDynamicGuard = 256;          // guard bytes after dynamic shared memory
constexpr size_t kQuarantineBytes = size_t{512} << 20;  // freed memory kept inaccessible
constexpr int kWarp = 32;

std::recursive_mutex mutex;
cudaError_t last_error = cudaSuccess;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}
int ComputeCapability() {
  static const int cc = EnvInt("GRADOPS_EMULATED_CC", 90);
  return cc;
}
int Multiprocessors() {
  static const int sms = std::max(1, EnvInt("GRADOPS_EMULATED_SMS", 4));
  return sms;
}

cudaError_t Fail(cudaError_t error, const std::string& message) {
  std::fprintf(stderr, "[cuda emulator] %s\n", message.c_str());
  last_error = error;
  return error;
}

std::set<const CUstream_st*> streams;  // made by cudaStreamCreate, not yet destroyed

bool ValidStream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || streams.count(stream) != 0;
}

// ---- Memory --------------------------------------------------------------

struct Allocation {
  char* map = nullptr;  // guard page, pages, guard page
  size_t map_bytes = 0;
  char* data = nullptr;
  size_t bytes = 0;
  bool device = true;  // false: cudaMallocHost
};
std::map<const char*, Allocation> allocations;  // by data
std::deque<Allocation> freed;                   // inaccessible until kQuarantineBytes more are freed
size_t freed_bytes = 0;
std::vector<char*> stacks;                      // of emulated threads, reused across launches
struct Cluster;
Cluster* running = nullptr;                     // the cluster of the launch in progress

// The first byte of [begin, end) that is not `byte`, or null.
const char* FirstNot(const char* begin, const char* end, unsigned char byte) {
  for (const char* q = begin; q < end; ++q) {
    if (static_cast<unsigned char>(*q) != byte) return q;
  }
  return nullptr;
}

// The allocation holding [p, p + bytes), or null.
const Allocation* Find(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  auto it = allocations.upper_bound(c);
  if (it == allocations.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  if (c < a.data || c + bytes > a.data + std::max<size_t>(a.bytes, 1)) return nullptr;
  return &a;
}
bool OnDevice(const void* p, size_t bytes) {
  const Allocation* a = Find(p, bytes);
  return a != nullptr && a->device;
}

char* GuardedMap(size_t bytes, Allocation* a) {
  const size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  const size_t pages = (padded + kPage - 1) / kPage * kPage;
  a->map_bytes = pages + 2 * kPage;
  void* m = mmap(nullptr, a->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  a->map = static_cast<char*>(m);
  mprotect(a->map, kPage, PROT_NONE);
  mprotect(a->map + kPage + pages, kPage, PROT_NONE);
  // The allocation ends at the upper guard page, up to its alignment gap.
  a->data = a->map + kPage + pages - padded;
  a->bytes = bytes;
  std::memset(a->map + kPage, kGuardByte, pages - padded);
  std::memset(a->data, kPoisonByte, bytes);
  std::memset(a->data + bytes, kGuardByte, padded - bytes);
  return a->data;
}

// A fault the emulator can explain (a guard page, freed memory, an emulated
// thread's stack overflow, address 0 during a launch) is named before the
// process dies: the handler prints, puts the previous handler back (the
// default, or AddressSanitizer's) and returns, so the access faults again.
struct sigaction previous_action;

void Say(const char* text, int n) {
  if (n > 0) (void)!write(2, text, static_cast<size_t>(std::min<size_t>(static_cast<size_t>(n), 255)));
}

void OnFault(int, siginfo_t* info, void*) {
  const char* address = static_cast<const char*>(info->si_addr);
  char text[256];
  bool named = false;
  for (const auto& [data, a] : allocations) {
    const bool below = address >= a.map && address < a.map + kPage;
    const bool above = address >= a.map + a.map_bytes - kPage && address < a.map + a.map_bytes;
    if (!below && !above) continue;
    Say(text, std::snprintf(text, sizeof text, "[cuda emulator] access %ld bytes %s the %s allocation of %zu bytes at %p\n",
                            static_cast<long>(below ? a.data - address : address - (a.data + a.bytes) + 1),
                            below ? "before" : "past", a.device ? "device" : "host", a.bytes,
                            static_cast<const void*>(a.data)));
    named = true;
    break;
  }
  for (const Allocation& a : freed) {
    if (named || address < a.map || address >= a.map + a.map_bytes) continue;
    Say(text, std::snprintf(text, sizeof text, "[cuda emulator] access to freed memory: the allocation of %zu bytes at %p\n",
                            a.bytes, static_cast<const void*>(a.data)));
    named = true;
  }
  for (char* stack : stacks) {
    if (named || address < stack || address >= stack + kPage) continue;
    Say(text, std::snprintf(text, sizeof text, "[cuda emulator] stack overflow of an emulated thread (%zu KiB)\n",
                            kStackBytes >> 10));
    named = true;
  }
  if (!named && running != nullptr && address == nullptr) {
    Say(text, std::snprintf(text, sizeof text, "[cuda emulator] fault at address 0 in a kernel: a null pointer, "
                                               "or a vector access that is not aligned to its size\n"));
  }
  sigaction(SIGSEGV, &previous_action, nullptr);
}

void InstallFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Its own stack, so that an emulated thread's stack overflow is reported too.
    static char alternate[64 << 10];
    stack_t stack = {};
    stack.ss_sp = alternate;
    stack.ss_size = sizeof alternate;
    sigaltstack(&stack, nullptr);
    struct sigaction action = {};
    action.sa_sigaction = OnFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_action);
  });
}

// The first byte around an allocation that no longer holds kGuardByte, described.
std::string CorruptedGuards() {
  for (const auto& [data, a] : allocations) {
    const char* gaps[2][2] = {{a.map + kPage, a.data}, {a.data + a.bytes, a.map + a.map_bytes - kPage}};
    for (const auto& gap : gaps) {
      const char* q = FirstNot(gap[0], gap[1], kGuardByte);
      if (q == nullptr) continue;
      const bool before = q < a.data;
      char text[160];
      std::snprintf(text, sizeof text, "write %ld bytes %s the allocation of %zu bytes at %p",
                    static_cast<long>(before ? a.data - q : q - (a.data + a.bytes) + 1), before ? "before" : "past",
                    a.bytes, static_cast<const void*>(a.data));
      return text;
    }
  }
  return {};
}

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
#ifdef GRADOPS_EMULATOR_ASAN
  __sanitizer_start_switch_fiber(fake_stack, stack, bytes);
#endif
}
void FinishSwitch(void* fake_stack, const void** stack, size_t* bytes) {
#ifdef GRADOPS_EMULATOR_ASAN
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
  std::lock_guard<std::recursive_mutex> lock(mutex);
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
  while (stacks.size() < static_cast<size_t>(fibers)) {
    void* s = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED) return Fail(cudaErrorMemoryAllocation, "no memory for emulated threads");
    mprotect(s, kPage, PROT_NONE);  // overflow faults
    stacks.push_back(static_cast<char*>(s));
  }
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
          f.stack = stacks[i];
#ifdef GRADOPS_EMULATOR_ASAN
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

// ---- The runtime API -----------------------------------------------------

using cuda_emulator::Fail;
namespace emu = cuda_emulator;

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : Fail(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + ")");
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  if (device != 0) return Fail(cudaErrorInvalidDevice, "cudaDeviceGetAttribute of device " + std::to_string(device));
  switch (attribute) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMultiProcessorCount: *value = emu::Multiprocessors(); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; break;
    case cudaDevAttrComputeCapabilityMajor: *value = emu::ComputeCapability() / 10; break;
    case cudaDevAttrComputeCapabilityMinor: *value = emu::ComputeCapability() % 10; break;
    default: return Fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute " + std::to_string(attribute));
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return Fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties of device " + std::to_string(device));
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "CPU emulation of compute capability %d.%d",
                emu::ComputeCapability() / 10, emu::ComputeCapability() % 10);
  prop->multiProcessorCount = emu::Multiprocessors();
  prop->major = emu::ComputeCapability() / 10;
  prop->minor = emu::ComputeCapability() % 10;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->totalGlobalMem = size_t{16} << 30;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* p) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  *attributes = {};
  attributes->device = -2;
  if (const emu::Allocation* a = emu::Find(p, 1)) {
    attributes->type = a->device ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
    attributes->device = 0;
    attributes->devicePointer = const_cast<void*>(p);
    attributes->hostPointer = a->device ? nullptr : const_cast<void*>(p);
  }
  return cudaSuccess;
}

namespace {

cudaError_t Allocate(void** p, size_t bytes, bool device) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  emu::Allocation a;
  a.device = device;
  emu::InstallFaultHandler();
  if (emu::GuardedMap(bytes, &a) == nullptr) {
    return Fail(cudaErrorMemoryAllocation, "allocation of " + std::to_string(bytes) + " bytes");
  }
  emu::allocations[a.data] = a;
  *p = a.data;
  return cudaSuccess;
}

cudaError_t Release(void* p, bool device) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (p == nullptr) return cudaSuccess;
  auto it = emu::allocations.find(static_cast<const char*>(p));
  if (it == emu::allocations.end() || it->second.device != device) {
    return Fail(cudaErrorInvalidValue, std::string(device ? "cudaFree" : "cudaFreeHost") + " of an unknown pointer");
  }
  // Kept inaccessible for a while, so that a kernel using it after the free faults.
  const emu::Allocation a = it->second;
  emu::allocations.erase(it);
  mprotect(a.map, a.map_bytes, PROT_NONE);
  emu::freed.push_back(a);
  emu::freed_bytes += a.map_bytes;
  while (emu::freed_bytes > emu::kQuarantineBytes) {
    munmap(emu::freed.front().map, emu::freed.front().map_bytes);
    emu::freed_bytes -= emu::freed.front().map_bytes;
    emu::freed.pop_front();
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaMalloc(void** p, size_t bytes) { return Allocate(p, bytes, true); }
cudaError_t cudaFree(void* p) { return Release(p, true); }
cudaError_t cudaMallocHost(void** p, size_t bytes) { return Allocate(p, bytes, false); }
cudaError_t cudaFreeHost(void* p) { return Release(p, false); }

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (bytes == 0) return cudaSuccess;
  // A range that starts in an allocation must end in it.
  for (const void* p : {static_cast<const void*>(dst), src}) {
    if (emu::Find(p, 1) != nullptr && emu::Find(p, bytes) == nullptr) {
      return Fail(cudaErrorInvalidValue, "cudaMemcpy of " + std::to_string(bytes) + " bytes past an allocation's end");
    }
  }
  const bool dst_device = emu::OnDevice(dst, bytes), src_device = emu::OnDevice(src, bytes);
  const bool ok = kind == cudaMemcpyDefault || (kind == cudaMemcpyHostToHost && !dst_device && !src_device) ||
                  (kind == cudaMemcpyHostToDevice && dst_device && !src_device) ||
                  (kind == cudaMemcpyDeviceToHost && !dst_device && src_device) ||
                  (kind == cudaMemcpyDeviceToDevice && dst_device && src_device);
  if (!ok) {
    return Fail(cudaErrorInvalidValue, "cudaMemcpy of kind " + std::to_string(kind) + " from " +
                                           (src_device ? "device" : "host") + " to " + (dst_device ? "device" : "host") +
                                           " memory (or past an allocation's end)");
  }
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (!emu::ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle, "cudaMemcpyAsync on an unknown stream");
  return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* p, int value, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (bytes == 0) return cudaSuccess;
  if (!emu::OnDevice(p, bytes)) return Fail(cudaErrorInvalidValue, "cudaMemset outside device memory");
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (!emu::ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle, "cudaMemsetAsync on an unknown stream");
  return cudaMemset(p, value, bytes);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  *stream = new CUstream_st;
  emu::streams.insert(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (emu::streams.erase(stream) == 0) return Fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy of an unknown stream");
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  if (!emu::ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize of an unknown stream");
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

cudaError_t cudaGetLastError() {
  std::lock_guard<std::recursive_mutex> lock(emu::mutex);
  const cudaError_t e = emu::last_error;
  emu::last_error = cudaSuccess;
  return e;
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorClusterOutOfResources: return "too many resources requested for launch of the cluster";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
  }
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  event->time = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  *ms = std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return cudaSuccess;
}
