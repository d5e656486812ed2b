#include "core/host_memory.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/sanitizers.h"

namespace gradops {
namespace {

constexpr size_t kLine = 64;

size_t RoundUp(size_t bytes, size_t to) { return bytes > SIZE_MAX - (to - 1) ? 0 : (bytes + to - 1) / to * to; }

#if defined(__linux__) && defined(MADV_HUGEPAGE)
constexpr size_t kSmallPage = 4096;

// Mappings of their own are never handed out again by malloc for something
// else; what to unmap, by the address handed out.
struct Mapping {
  void* base;
  size_t bytes;
};
struct Mappings {
  std::mutex mutex;
  std::unordered_map<void*, Mapping> by_address;
};
Mappings& OwnMappings() {
  static Mappings* mappings = new Mappings();  // outlives every static destructor that may free
  return *mappings;
}

// The next staggered position: 0, then kStaggerStep before the last one.
size_t NextStagger() {
  static std::atomic<size_t> count{0};
  const size_t k = count.fetch_add(1, std::memory_order_relaxed) % kStaggerPositions;
  return (kSmallPage - k * kStaggerStep % kSmallPage) % kSmallPage;
}

// `bytes` at `offset` past a boundary of `alignment` (a multiple of the page
// size) in a mapping of their own, advised for huge pages before the first
// touch if asked; nullptr when the address space has no room.
void* MapOwn(size_t bytes, size_t alignment, size_t offset, bool huge_pages) {
  const size_t length = RoundUp(offset + bytes, kSmallPage);
  const size_t reserve = length + alignment;
  if (length == 0 || reserve < length) return nullptr;
  void* const base = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  const uintptr_t start = (b + alignment - 1) / alignment * alignment;
  if (start > b) munmap(base, start - b);  // the unaligned head and tail go back
  const uintptr_t end = start + length;
  if (b + reserve > end) munmap(reinterpret_cast<void*>(end), b + reserve - end);
  void* const mapping = reinterpret_cast<void*>(start);
  if (huge_pages) madvise(mapping, length, MADV_HUGEPAGE);  // advice: where refused, ordinary pages
  char* const memory = reinterpret_cast<char*>(mapping) + offset;
#ifdef GRADOPS_ASAN
  // The mapping around the allocation is no one's: reads and writes there
  // are reported as overflows, as for malloc's memory.
  ASAN_POISON_MEMORY_REGION(mapping, offset);
  ASAN_POISON_MEMORY_REGION(memory + bytes, length - offset - bytes);
#endif
  Mappings& m = OwnMappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.by_address[memory] = Mapping{mapping, length};
  return memory;
}

// True when `memory` came from MapOwn, now unmapped.
bool UnmapOwn(void* memory) {
  Mappings& m = OwnMappings();
  Mapping mapping{};
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    const auto it = m.by_address.find(memory);
    if (it == m.by_address.end()) return false;
    mapping = it->second;
    m.by_address.erase(it);
  }
#ifdef GRADOPS_ASAN
  ASAN_UNPOISON_MEMORY_REGION(mapping.base, mapping.bytes);  // the next mapping here starts clean
#endif
  munmap(mapping.base, mapping.bytes);
  return true;
}
#endif

}  // namespace

void* AllocateHostMemory(size_t bytes, HostPlacement placement) {
  if (bytes > static_cast<size_t>(PTRDIFF_MAX)) return nullptr;  // larger than any object can be
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const bool huge = placement.huge_pages && bytes >= kHugePageBytes;
  const bool staggered = placement.staggered && bytes >= kStaggerMinBytes;
  if (huge || staggered) return MapOwn(bytes, huge ? kHugePageBytes : kSmallPage, staggered ? NextStagger() : 0, huge);
#else
  (void)placement;
#endif
  const size_t lines = RoundUp(bytes == 0 ? 1 : bytes, kLine);  // aligned_alloc wants whole alignments
  return lines == 0 ? nullptr : std::aligned_alloc(kLine, lines);
}

void FreeHostMemory(void* memory) {
  if (memory == nullptr) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (UnmapOwn(memory)) return;
#endif
  std::free(memory);
}

}  // namespace gradops
