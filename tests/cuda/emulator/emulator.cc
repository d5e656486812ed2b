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

// A fault in a guard page names the allocation before the process dies (the
// handler then restores the default action and the access faults again).
void OnFault(int signal, siginfo_t* info, void*) {
  const char* address = static_cast<const char*>(info->si_addr);
  for (const auto& [data, a] : allocations) {
    const bool below = address >= a.map && address < a.map + kPage;
    const bool above = address >= a.map + a.map_bytes - kPage && address < a.map + a.map_bytes;
    if (!below && !above) continue;
    char text[200];
    const int n = std::snprintf(text, sizeof text,
                                "[cuda emulator] access %ld bytes %s the %s allocation of %zu bytes at %p\n",
                                static_cast<long>(below ? a.data - address : address - (a.data + a.bytes) + 1),
                                below ? "before" : "past", a.device ? "device" : "host", a.bytes,
                                static_cast<const void*>(a.data));
    if (n > 0) (void)!write(2, text, static_cast<size_t>(n));
    break;
  }
  ::signal(signal, SIG_DFL);
}

void InstallFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_sigaction = OnFault;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, nullptr);
  });
}

// The first byte around an allocation that no longer holds kGuardByte, described.
std::string CorruptedGuards() {
  for (const auto& [data, a] : allocations) {
    const char* gaps[2][2] = {{a.map + kPage, a.data}, {a.data + a.bytes, a.map + a.map_bytes - kPage}};
    for (const auto& gap : gaps) {
      for (const char* q = gap[0]; q < gap[1]; ++q) {
        if (static_cast<unsigned char>(*q) == kGuardByte) continue;
        const bool before = q < a.data;
        char text[160];
        std::snprintf(text, sizeof text, "write %ld bytes %s the allocation of %zu bytes at %p",
                      static_cast<long>(before ? a.data - q : q - (a.data + a.bytes) + 1), before ? "before" : "past",
                      a.bytes, static_cast<const void*>(a.data));
        return text;
      }
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
  std::vector<char> dynamic;
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

Cluster* running = nullptr;
std::vector<char*> stacks;  // reused across launches

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

[[noreturn]] void Abandon(const std::string& message) {
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

// Runs every fiber of the cluster to its end; false on a failure.
bool Schedule(bool reverse) {
  Cluster& c = *running;
  const int n = static_cast<int>(c.fibers.size());
  int live = n;
  while (live > 0 && !c.failed) {
    const uint64_t before = c.events;
    for (int k = 0; k < n && !c.failed; ++k) {
      Fiber& f = c.fibers[reverse ? n - 1 - k : k];
      if (f.done || (f.waiting != nullptr && f.waiting->generation == f.waiting_generation)) continue;
      MakeLive(f.cta);
      threadIdx = f.state.thread_idx;
      blockIdx = f.state.block_idx;
      blockDim = f.state.block_dim;
      gridDim = f.state.grid_dim;
      Resume(f);
      if (f.done) --live;
    }
    if (!c.failed && live > 0 && c.events == before) {
      c.failed = true;
      c.failure = "deadlock: threads wait at a barrier (__syncthreads, a warp shuffle or cluster.sync) that " +
                  std::to_string(live) + " unfinished threads of the cluster never reach";
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
    Abandon("__shfl_xor_sync(mask " + std::to_string(member_mask) + ", lane mask " + std::to_string(lane_mask) +
            ", width " + std::to_string(width) + ") in a warp of " + std::to_string(size) + " threads");
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
  std::vector<char>& d = running->ctas[Current().cta].dynamic;
  return d.empty() ? nullptr : d.data();
}

void* MapSharedRank(const void* p, unsigned rank) {
  Cluster& c = *running;
  if (rank >= c.ctas.size()) Abandon("map_shared_rank to rank " + std::to_string(rank) + " of a smaller cluster");
  const int here = Current().cta;
  if (static_cast<int>(rank) == here) return const_cast<void*>(p);
  const char* q = static_cast<const char*>(p);
  const std::vector<char>& dynamic = c.ctas[here].dynamic;
  if (!dynamic.empty() && q >= dynamic.data() && q < dynamic.data() + dynamic.size()) {
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
  const bool reverse = (launches++ % 2) == 1;
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
          cta.dynamic.assign(config.dynamicSmemBytes, static_cast<char>(kPoisonByte));
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
          f.context = NewContext(f.stack + kStackBytes, Entry);
        }
        running = &c;
        const bool ok = Schedule(reverse);
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
  munmap(it->second.map, it->second.map_bytes);
  emu::allocations.erase(it);
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
