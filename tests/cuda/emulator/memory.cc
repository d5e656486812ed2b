// Device memory of the CUDA emulation: allocations between guard pages,
// guard bytes in their alignment gaps, a quarantine for freed memory, the
// stacks of emulated threads, and a fault handler that names what a fault
// hit before the process dies.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "internal.h"

namespace cuda_emulator {
namespace {

constexpr size_t kAlignment = 256;                      // cudaMalloc's alignment
constexpr size_t kQuarantineBytes = size_t{512} << 20;  // freed memory kept inaccessible

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
  if (!named && KernelRunning() && address == nullptr) {
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

}  // namespace

// The first byte of [begin, end) that is not `byte`, or null.
const char* FirstNot(const char* begin, const char* end, unsigned char byte) {
  for (const char* q = begin; q < end; ++q) {
    if (static_cast<unsigned char>(*q) != byte) return q;
  }
  return nullptr;
}

// The first byte around an allocation that no longer holds kGuardByte, described.
std::string CorruptedGuards() {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
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

bool Allocated(const void* p, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  return Find(p, bytes) != nullptr;
}

bool OnDevice(const void* p, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  const Allocation* a = Find(p, bytes);
  return a != nullptr && a->device;
}

bool Lookup(const void* p, bool* device) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  const Allocation* a = Find(p, 1);
  if (a != nullptr) *device = a->device;
  return a != nullptr;
}

cudaError_t Allocate(void** p, size_t bytes, bool device) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  Allocation a;
  a.device = device;
  InstallFaultHandler();
  if (GuardedMap(bytes, &a) == nullptr) {
    return Fail(cudaErrorMemoryAllocation, "allocation of " + std::to_string(bytes) + " bytes");
  }
  allocations[a.data] = a;
  *p = a.data;
  return cudaSuccess;
}

cudaError_t Release(void* p, bool device) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  if (p == nullptr) return cudaSuccess;
  auto it = allocations.find(static_cast<const char*>(p));
  if (it == allocations.end() || it->second.device != device) {
    return Fail(cudaErrorInvalidValue, std::string(device ? "cudaFree" : "cudaFreeHost") + " of an unknown pointer");
  }
  // Kept inaccessible for a while, so that a kernel using it after the free faults.
  const Allocation a = it->second;
  allocations.erase(it);
  mprotect(a.map, a.map_bytes, PROT_NONE);
  freed.push_back(a);
  freed_bytes += a.map_bytes;
  while (freed_bytes > kQuarantineBytes) {
    munmap(freed.front().map, freed.front().map_bytes);
    freed_bytes -= freed.front().map_bytes;
    freed.pop_front();
  }
  return cudaSuccess;
}

bool ReserveStacks(size_t count) {
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  while (stacks.size() < count) {
    void* s = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED) return false;
    mprotect(s, kPage, PROT_NONE);  // overflow faults
    stacks.push_back(static_cast<char*>(s));
  }
  return true;
}

char* Stack(size_t index) { return stacks[index]; }

}  // namespace cuda_emulator
