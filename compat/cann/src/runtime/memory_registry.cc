// Allocation bookkeeping: a map from base address to size, searched by range.
#include "runtime/memory_registry.h"

#include <cstdint>
#include <map>
#include <mutex>

namespace gradops {
namespace cann {
namespace runtime {
namespace {

struct Allocation {
  size_t bytes;
  MemoryKind kind;
  Device* owner;
};

struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> allocations;
};

Registry& Allocations() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

void AddAllocation(void* base, size_t bytes, MemoryKind kind, Device* owner) {
  Registry& r = Allocations();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.allocations[reinterpret_cast<uintptr_t>(base)] = Allocation{bytes, kind, owner};
}

Device* RemoveAllocation(void* base, MemoryKind kind) {
  Registry& r = Allocations();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.allocations.find(reinterpret_cast<uintptr_t>(base));
  if (it == r.allocations.end() || it->second.kind != kind) return nullptr;
  Device* owner = it->second.owner;
  r.allocations.erase(it);
  return owner;
}

bool CheckRange(const void* ptr, size_t bytes, const char* name, std::string* error) {
  Registry& r = Allocations();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.allocations.upper_bound(p);
  if (it == r.allocations.begin()) return true;
  --it;
  const uintptr_t base = it->first;
  const size_t size = it->second.bytes;
  if (p - base >= size) return true;  // not inside this allocation
  const size_t room = size - (p - base);
  if (bytes <= room) return true;
  *error = std::string(name) + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(p - base) +
           " run past the end of a " + std::to_string(size) + "-byte allocation";
  return false;
}

}  // namespace runtime
}  // namespace cann
}  // namespace gradops
