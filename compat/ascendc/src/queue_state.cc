// The queue state machine and the TPipe's UB reservations (queue_state.h).
#include "gradops_ascendc/queue_state.h"

#include <string>

#include "block_context.h"

namespace gradops {
namespace ascendc {

std::string QueueState::Name() const {
  const char* position = UbPositionName(position_);
  return std::string("TQue<") + (position ? position : "?") + ", " + std::to_string(depth_) + ">";
}

void QueueState::Attach(uint8_t* data, uint32_t num, uint32_t bytes) {
  if (!slots_.empty()) Fail("TPipe::InitBuffer", Name() + " was initialised already");
  if (num == 0) Fail("TPipe::InitBuffer", Name() + ": the buffer count must be at least 1");
  slots_.resize(num);
  for (uint32_t i = 0; i < num; ++i) {
    slots_[i].data = data + uint64_t{i} * bytes;
    slots_[i].bytes = bytes;
    slots_[i].owner = this;
  }
}

void QueueState::CheckAttached(const char* api) const {
  CurrentBlock(api);
  if (slots_.empty()) Fail("queue order", std::string(api) + " on " + Name() + " before TPipe::InitBuffer");
}

bool QueueState::VacantInQue() const {
  const size_t capacity = depth_ > 0 ? static_cast<size_t>(depth_) : slots_.size();
  return fifo_.size() < capacity;
}

BufferSlot* QueueState::Owned(const BufferRef& ref, const char* api) {
  CheckAttached(api);
  if (ref.slot == nullptr || ref.slot->owner != this) {
    Fail("queue order", std::string(api) + " on " + Name() + " with a LocalTensor that was not allocated from it");
  }
  if (ref.slot->generation != ref.generation) {
    Fail("queue order", std::string(api) + " on " + Name() + " with a LocalTensor already released by FreeTensor");
  }
  return ref.slot;
}

BufferRef QueueState::Alloc() {
  CheckAttached("AllocTensor");
  for (BufferSlot& slot : slots_) {
    if (slot.state == SlotState::kFree) {
      slot.state = SlotState::kAllocated;
      return BufferRef{&slot, slot.generation, slot.data, slot.bytes};
    }
  }
  Fail("queue order", "AllocTensor on " + Name() + ": all " + std::to_string(slots_.size()) +
                          " buffers are in use; FreeTensor one first");
}

void QueueState::EnQue(const BufferRef& ref) {
  BufferSlot* slot = Owned(ref, "EnQue");
  if (slot->state != SlotState::kAllocated) {
    Fail("queue order", "EnQue on " + Name() + " of a tensor that is " + SlotStateName(slot->state) +
                            ", not freshly allocated");
  }
  if (!VacantInQue()) {
    Fail("queue order", "EnQue on " + Name() + ": the queue already holds " + std::to_string(fifo_.size()) +
                            " tensors; DeQue one first");
  }
  slot->state = SlotState::kQueued;
  fifo_.push_back(slot);
}

BufferRef QueueState::DeQue() {
  CheckAttached("DeQue");
  if (fifo_.empty()) Fail("queue order", "DeQue on " + Name() + " with nothing EnQue'd");
  BufferSlot* slot = fifo_.front();
  fifo_.pop_front();
  slot->state = SlotState::kDequeued;
  return BufferRef{slot, slot->generation, slot->data, slot->bytes};
}

void QueueState::Free(const BufferRef& ref) {
  BufferSlot* slot = Owned(ref, "FreeTensor");
  if (slot->state != SlotState::kAllocated && slot->state != SlotState::kDequeued) {
    Fail("queue order", "FreeTensor on " + Name() + " of a tensor that is " + SlotStateName(slot->state));
  }
  slot->state = SlotState::kFree;
  ++slot->generation;
}

PipeState::PipeState() {
  BlockContext& block = CurrentBlock("TPipe");
  if (block.pipe_live) Fail("TPipe", "a second TPipe while one is live: a block has one TPipe at a time");
  block.pipe_live = true;
  block.reserved = 0;
  live_ = true;
}

PipeState::~PipeState() { Release(); }

void PipeState::Release() {
  if (!live_) return;
  BlockContext* block = CurrentBlockOrNull();
  if (block != nullptr) {
    block->pipe_live = false;
    block->reserved = 0;
  }
  live_ = false;
}

uint8_t* PipeState::Reserve(uint32_t num, uint32_t bytes, AscendC::QuePosition position, const char* what) {
  BlockContext& block = CurrentBlock("TPipe::InitBuffer");
  if (!live_) Fail("TPipe::InitBuffer", "the TPipe was destroyed");
  const char* name = UbPositionName(position);
  if (name == nullptr) {
    Fail("TPipe::InitBuffer", std::string(what) + " position is not provided: only VECIN, VECOUT and VECCALC");
  }
  const uint64_t total = uint64_t{num} * AlignUb(bytes);
  if (total > kUbCapacity - block.reserved) {
    Fail("UB capacity", std::string("InitBuffer of ") + what + "<" + name + ">: " + std::to_string(num) + " x " +
                            std::to_string(bytes) + " bytes (" + std::to_string(total) + " aligned) at offset " +
                            std::to_string(block.reserved) + " exceeds the " + std::to_string(kUbCapacity) +
                            "-byte Unified Buffer");
  }
  uint8_t* data = block.ub + block.reserved;
  block.reserved += static_cast<uint32_t>(total);
  return data;
}

}  // namespace ascendc
}  // namespace gradops
