// The UB memory a LocalTensor refers to: a buffer slot of a queue or TBuf
// (with its state and generation, so that a stale tensor is recognised) and
// the byte range of the tensor inside that slot.
#pragma once

#include <cstdint>
#include <string>

namespace gradops {
namespace ascendc {

enum class SlotState : uint8_t {
  kFree,       // owned by its queue, not handed out
  kAllocated,  // AllocTensor returned it
  kQueued,     // EnQue'd, waiting for DeQue
  kDequeued,   // DeQue returned it
  kFixed,      // a TBuf's memory: always usable
};
const char* SlotStateName(SlotState state);

struct BufferSlot {
  uint8_t* data = nullptr;  // first byte, inside the block's UB
  uint32_t bytes = 0;
  SlotState state = SlotState::kFree;
  uint32_t generation = 0;  // advanced by FreeTensor
  const void* owner = nullptr;
};

struct BufferRef {
  BufferSlot* slot = nullptr;
  uint32_t generation = 0;
  uint8_t* data = nullptr;  // the tensor's first byte
  uint32_t bytes = 0;       // the tensor's extent
};

// The tensor may be read and written now: it was allocated, is not freed,
// not waiting in a queue, and lies in the running block's UB. `api` names
// the calling function in the message.
void CheckUsable(const BufferRef& ref, const char* api);

// A sub-range [offset, offset + bytes) of a tensor; fails past its end.
BufferRef SubRange(const BufferRef& ref, uint64_t offset, uint64_t bytes, const char* api);

// Offset of the tensor's first byte from the start of the UB.
uint32_t UbOffset(const BufferRef& ref);

}  // namespace ascendc
}  // namespace gradops
