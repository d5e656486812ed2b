// The allocations the runtime handed out (device and host), so that a double
// free, a free of a foreign pointer or a copy running past the end of an
// allocation is refused instead of corrupting memory.
#pragma once

#include <cstddef>
#include <string>

namespace gradops {
namespace cann {
namespace runtime {

enum class MemoryKind { kDevice, kHost };

class Device;

// `owner`: the device that allocated it, and that frees it.
void AddAllocation(void* base, size_t bytes, MemoryKind kind, Device* owner);
// The owner, or null when `base` is not the start of a live allocation of
// `kind` (which then stays as it was).
Device* RemoveAllocation(void* base, MemoryKind kind);

// When [ptr, ptr + bytes) starts inside a known allocation but does not end
// inside it, describes the overrun in *error and returns false. Pointers the
// runtime does not know pass.
bool CheckRange(const void* ptr, size_t bytes, const char* name, std::string* error);

}  // namespace runtime
}  // namespace cann
}  // namespace gradops
