// Checks on the UB memory behind LocalTensors, and position names.
#include <string>

#include "block_context.h"
#include "gradops_ascendc/local_buffer.h"
#include "gradops_ascendc/positions.h"
#include "gradops_ascendc/runtime.h"

namespace gradops {
namespace ascendc {

const char* SlotStateName(SlotState state) {
  switch (state) {
    case SlotState::kFree: return "free";
    case SlotState::kAllocated: return "allocated";
    case SlotState::kQueued: return "queued";
    case SlotState::kDequeued: return "dequeued";
    case SlotState::kFixed: return "a TBuf";
  }
  return "?";
}

const char* UbPositionName(AscendC::QuePosition position) {
  switch (position) {
    case AscendC::QuePosition::VECIN: return "VECIN";
    case AscendC::QuePosition::VECOUT: return "VECOUT";
    case AscendC::QuePosition::VECCALC: return "VECCALC";
    default: return nullptr;
  }
}

void CheckUsable(const BufferRef& ref, const char* api) {
  const BlockContext& block = CurrentBlock(api);
  if (ref.slot == nullptr) Fail(api, "the LocalTensor was never allocated from a TQue or TBuf");
  if (ref.slot->generation != ref.generation) {
    Fail("queue order", std::string(api) + " on a LocalTensor after FreeTensor released its buffer");
  }
  const SlotState state = ref.slot->state;
  if (state == SlotState::kQueued) {
    Fail("queue order", std::string(api) + " on a LocalTensor that is EnQue'd: DeQue it first");
  }
  if (state == SlotState::kFree) {
    Fail("queue order", std::string(api) + " on a LocalTensor whose buffer is free");
  }
  if (ref.data < block.ub || ref.data + ref.bytes > block.ub + kUbCapacity) {
    Fail(api, "the LocalTensor does not lie in this block's Unified Buffer");
  }
}

BufferRef SubRange(const BufferRef& ref, uint64_t offset, uint64_t bytes, const char* api) {
  if (offset > ref.bytes || bytes > ref.bytes - offset) {
    Fail("LocalTensor bounds", std::string(api) + ": bytes [" + std::to_string(offset) + ", " +
                                   std::to_string(offset + bytes) + ") are outside the tensor's " +
                                   std::to_string(ref.bytes) + " bytes");
  }
  BufferRef sub = ref;
  sub.data = ref.data + offset;
  sub.bytes = static_cast<uint32_t>(bytes);
  return sub;
}

uint32_t UbOffset(const BufferRef& ref) {
  return static_cast<uint32_t>(ref.data - CurrentBlock("UB access").ub);
}

}  // namespace ascendc
}  // namespace gradops
