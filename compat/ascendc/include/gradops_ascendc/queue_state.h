// The state machine of a TQue's buffers, without templates:
//   AllocTensor: free -> allocated        EnQue: allocated -> queued (FIFO)
//   DeQue:       queued -> dequeued       FreeTensor: allocated/dequeued -> free
// The FIFO holds at most `depth` tensors. Any other order is an error, as is
// using a queue before TPipe::InitBuffer or handing it another queue's tensor.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "gradops_ascendc/local_buffer.h"
#include "gradops_ascendc/positions.h"
#include "gradops_ascendc/runtime.h"

namespace gradops {
namespace ascendc {

class QueueState {
 public:
  QueueState(AscendC::QuePosition position, int32_t depth) : position_(position), depth_(depth) {}
  QueueState(const QueueState&) = delete;
  QueueState& operator=(const QueueState&) = delete;

  // TPipe::InitBuffer: `num` buffers of `bytes` each, from `data` on.
  void Attach(uint8_t* data, uint32_t num, uint32_t bytes);

  BufferRef Alloc();
  void EnQue(const BufferRef& ref);
  BufferRef DeQue();
  void Free(const BufferRef& ref);

  bool HasTensorInQue() const { return !fifo_.empty(); }
  int32_t GetTensorCountInQue() const { return static_cast<int32_t>(fifo_.size()); }
  bool VacantInQue() const;

 private:
  void CheckAttached(const char* api) const;
  BufferSlot* Owned(const BufferRef& ref, const char* api);
  std::string Name() const;

  AscendC::QuePosition position_;
  int32_t depth_;
  std::vector<BufferSlot> slots_;
  std::deque<BufferSlot*> fifo_;
};

// The pipe's bookkeeping: one live TPipe per block, which carves buffers
// from the block's UB, 32-byte aligned, and fails past the UB's capacity.
class PipeState {
 public:
  PipeState();
  ~PipeState();
  PipeState(const PipeState&) = delete;
  PipeState& operator=(const PipeState&) = delete;

  // Reserves num * align32(bytes) bytes for `what`; returns their address.
  uint8_t* Reserve(uint32_t num, uint32_t bytes, AscendC::QuePosition position, const char* what);
  void Release();

 private:
  bool live_ = false;
};

inline uint64_t AlignUb(uint64_t bytes) { return (bytes + kUbAlign - 1) / kUbAlign * kUbAlign; }

}  // namespace ascendc
}  // namespace gradops
