#include "core/host_memory.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gradops {
namespace {

constexpr size_t kLine = 64;

size_t RoundUp(size_t bytes, size_t to) { return bytes > SIZE_MAX - (to - 1) ? 0 : (bytes + to - 1) / to * to; }

#if defined(__linux__) && defined(MADV_HUGEPAGE)
constexpr size_t kSmallPage = 4096;

// Advised memory is a mapping of its own, never handed out again by malloc
// for something else; the sizes to unmap, by address.
struct Mappings {
  std::mutex mutex;
  std::unordered_map<void*, size_t> bytes;
};
Mappings& HugeMappings() {
  static Mappings* mappings = new Mappings();  // outlives every static destructor that may free
  return *mappings;
}

// A mapping of `bytes` (whole small pages) on a 2 MiB boundary, advised
// before its first touch; nullptr when the address space has no room.
void* MapHuge(size_t bytes) {
  const size_t reserve = bytes + kHugePageBytes;
  if (reserve < bytes) return nullptr;
  void* const base = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  const uintptr_t start = (b + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (start > b) munmap(base, start - b);  // the unaligned head and tail go back
  const uintptr_t end = start + bytes;
  if (b + reserve > end) munmap(reinterpret_cast<void*>(end), b + reserve - end);
  void* const memory = reinterpret_cast<void*>(start);
  madvise(memory, bytes, MADV_HUGEPAGE);  // advice: where refused, ordinary pages
  Mappings& m = HugeMappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.bytes[memory] = bytes;
  return memory;
}

// True when `memory` was a mapping of MapHuge, now gone.
bool UnmapHuge(void* memory) {
  Mappings& m = HugeMappings();
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    const auto it = m.bytes.find(memory);
    if (it == m.bytes.end()) return false;
    bytes = it->second;
    m.bytes.erase(it);
  }
  munmap(memory, bytes);
  return true;
}
#endif

}  // namespace

void* AllocateHostMemory(size_t bytes, bool huge_pages) {
  if (bytes > static_cast<size_t>(PTRDIFF_MAX)) return nullptr;  // larger than any object can be
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge_pages && bytes >= kHugePageBytes) {
    const size_t pages = RoundUp(bytes, kSmallPage);
    return pages == 0 ? nullptr : MapHuge(pages);
  }
#endif
  const size_t lines = RoundUp(bytes == 0 ? 1 : bytes, kLine);  // aligned_alloc wants whole alignments
  return lines == 0 ? nullptr : std::aligned_alloc(kLine, lines);
}

void FreeHostMemory(void* memory) {
  if (memory == nullptr) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (UnmapHuge(memory)) return;
#endif
  std::free(memory);
}

}  // namespace gradops
