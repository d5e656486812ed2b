// AscendC::LocalTensor: a typed view of UB memory handed out by a queue or
// a TBuf. Every element access is bounds-checked and refused while the
// tensor is freed or waiting in a queue.
#pragma once

#include <cstdint>
#include <cstring>

#include "gradops_ascendc/local_buffer.h"
#include "gradops_ascendc/runtime.h"

namespace AscendC {

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  explicit LocalTensor(const gradops::ascendc::BufferRef& ref) : ref_(ref) {}

  uint32_t GetSize() const { return ref_.bytes / sizeof(T); }

  T GetValue(uint32_t index) const {
    T value;
    std::memcpy(&value, Element(index, "LocalTensor::GetValue"), sizeof(T));
    return value;
  }
  void SetValue(uint32_t index, T value) const {
    std::memcpy(Element(index, "LocalTensor::SetValue"), &value, sizeof(T));
  }

  // The tensor from element `offset` to the end.
  LocalTensor operator[](uint32_t offset) const {
    const uint64_t start = uint64_t{offset} * sizeof(T);
    const uint64_t rest = start <= ref_.bytes ? ref_.bytes - start : 0;
    return LocalTensor(gradops::ascendc::SubRange(ref_, start, rest, "LocalTensor::operator[]"));
  }

  // The same bytes seen as elements of U.
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(ref_);
  }

  // The address of the first element: for the high-level APIs and tests.
  T* GetPhyAddr() const { return reinterpret_cast<T*>(ref_.data); }

  const gradops::ascendc::BufferRef& ref() const { return ref_; }

 private:
  uint8_t* Element(uint32_t index, const char* api) const {
    gradops::ascendc::CheckUsable(ref_, api);
    return gradops::ascendc::SubRange(ref_, uint64_t{index} * sizeof(T), sizeof(T), api).data;
  }

  gradops::ascendc::BufferRef ref_;
};

}  // namespace AscendC
