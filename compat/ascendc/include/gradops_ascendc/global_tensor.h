// AscendC::GlobalTensor: a typed view of global memory. Element access must
// fall inside memory from AscendC::GmAlloc.
#pragma once

#include <cstdint>
#include <cstring>

#include "gradops_ascendc/kernel_macros.h"
#include "gradops_ascendc/runtime.h"

namespace AscendC {

template <typename T>
class GlobalTensor {
 public:
  GlobalTensor() = default;

  void SetGlobalBuffer(__gm__ T* buffer, uint64_t size) {
    address_ = buffer;
    size_ = size;
  }
  void SetGlobalBuffer(__gm__ T* buffer) { SetGlobalBuffer(buffer, 0); }

  // The element count given to SetGlobalBuffer (0 when none was given).
  uint64_t GetSize() const { return size_; }
  __gm__ T* GetPhyAddr() const { return address_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return address_ + offset; }

  T GetValue(uint64_t index) const {
    T value;
    std::memcpy(&value, Element(index), sizeof(T));
    return value;
  }
  void SetValue(uint64_t index, T value) const { std::memcpy(Element(index), &value, sizeof(T)); }

  // The tensor from element `offset` on.
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor sub;
    sub.address_ = address_ + offset;
    sub.size_ = size_ > offset ? size_ - offset : 0;
    return sub;
  }

 private:
  T* Element(uint64_t index) const {
    T* p = address_ + index;
    gradops::ascendc::CheckGmRange(p, sizeof(T), "GlobalTensor element access must lie in GmAlloc memory");
    return p;
  }

  __gm__ T* address_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace AscendC
