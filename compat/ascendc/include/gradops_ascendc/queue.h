// AscendC::TQue, TBuf and TPipe: the UB allocation model of a vector
// kernel. TPipe::InitBuffer carves each queue's buffers (or a TBuf) from the
// block's 192 KiB UB; queues hand out LocalTensors through AllocTensor,
// EnQue, DeQue and FreeTensor, in that order (see queue_state.h).
#pragma once

#include <cstdint>

#include "gradops_ascendc/local_tensor.h"
#include "gradops_ascendc/queue_state.h"

namespace AscendC {

template <TPosition pos, int32_t depth = 1>
class TQue : public gradops::ascendc::QueueState {
 public:
  TQue() : QueueState(pos, depth) {}

  template <typename T>
  LocalTensor<T> AllocTensor() {
    return LocalTensor<T>(Alloc());
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    QueueState::EnQue(tensor.ref());
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    return LocalTensor<T>(QueueState::DeQue());
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& tensor) {
    Free(tensor.ref());
  }
};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  TBuf() = default;
  TBuf(const TBuf&) = delete;
  TBuf& operator=(const TBuf&) = delete;

  void Attach(uint8_t* data, uint32_t bytes) {
    if (slot_.data != nullptr) gradops::ascendc::Fail("TPipe::InitBuffer", "the TBuf was initialised already");
    slot_.data = data;
    slot_.bytes = bytes;
    slot_.state = gradops::ascendc::SlotState::kFixed;
    slot_.owner = this;
  }

  // The whole buffer, or its first `count` elements.
  template <typename T>
  LocalTensor<T> Get() {
    return LocalTensor<T>(Whole("TBuf::Get"));
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t count) {
    return LocalTensor<T>(gradops::ascendc::SubRange(Whole("TBuf::Get"), 0, uint64_t{count} * sizeof(T), "TBuf::Get"));
  }
  // `count` elements from byte `offset` on.
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t count, uint32_t offset) {
    return LocalTensor<T>(gradops::ascendc::SubRange(Whole("TBuf::GetWithOffset"), offset,
                                                     uint64_t{count} * sizeof(T), "TBuf::GetWithOffset"));
  }

 private:
  gradops::ascendc::BufferRef Whole(const char* api) {
    if (slot_.data == nullptr) gradops::ascendc::Fail(api, "the TBuf has no memory: call TPipe::InitBuffer first");
    return gradops::ascendc::BufferRef{&slot_, slot_.generation, slot_.data, slot_.bytes};
  }

  gradops::ascendc::BufferSlot slot_;
};

class TPipe : public gradops::ascendc::PipeState {
 public:
  template <TPosition pos, int32_t depth>
  bool InitBuffer(TQue<pos, depth>& que, uint8_t num, uint32_t len) {
    const uint32_t bytes = static_cast<uint32_t>(gradops::ascendc::AlignUb(len));
    que.Attach(Reserve(num, len, pos, "TQue"), num, bytes);
    return true;
  }
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.Attach(Reserve(1, len, pos, "TBuf"), static_cast<uint32_t>(gradops::ascendc::AlignUb(len)));
    return true;
  }
  // Gives the UB back; queues and TBufs initialised before must not be used.
  void Destroy() { Release(); }
};

}  // namespace AscendC
