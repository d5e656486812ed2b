// AscendC::DataCopy between GM and UB (and UB to UB), contiguous or as
// blocks with strides. Lengths are multiples of 32 bytes, the UB side stays
// inside its LocalTensor and is 32-byte aligned, and the GM side stays
// inside one GmAlloc region; anything else is an error.
#pragma once

#include <cstdint>

#include "gradops_ascendc/global_tensor.h"
#include "gradops_ascendc/local_tensor.h"

namespace AscendC {

// blockCount blocks of blockLen 32-byte units; the strides are the gaps
// between blocks, in 32-byte units, on each side.
struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t src_stride, uint16_t dst_stride)
      : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride) {}
};

}  // namespace AscendC

namespace gradops {
namespace ascendc {

// One side of a copy: a UB tensor or a GM address.
struct CopyEnd {
  const BufferRef* ub = nullptr;
  uint8_t* gm = nullptr;
};

// Copies blocks of `block_bytes`, `count` times; each side advances by
// block_bytes + its gap after each block.
void CopyBlocks(const CopyEnd& dst, const CopyEnd& src, uint64_t count, uint64_t block_bytes, uint64_t dst_gap,
                uint64_t src_gap);

inline CopyEnd Ub(const BufferRef& ref) { return CopyEnd{&ref, nullptr}; }
template <typename T>
CopyEnd Gm(const AscendC::GlobalTensor<T>& tensor) {
  return CopyEnd{nullptr, reinterpret_cast<uint8_t*>(tensor.GetPhyAddr())};
}

}  // namespace ascendc
}  // namespace gradops

namespace AscendC {

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  namespace ga = gradops::ascendc;
  ga::CopyBlocks(ga::Ub(dst.ref()), ga::Gm(src), 1, uint64_t{count} * sizeof(T), 0, 0);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  namespace ga = gradops::ascendc;
  ga::CopyBlocks(ga::Gm(dst), ga::Ub(src.ref()), 1, uint64_t{count} * sizeof(T), 0, 0);
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  namespace ga = gradops::ascendc;
  ga::CopyBlocks(ga::Ub(dst.ref()), ga::Ub(src.ref()), 1, uint64_t{count} * sizeof(T), 0, 0);
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  namespace ga = gradops::ascendc;
  ga::CopyBlocks(ga::Ub(dst.ref()), ga::Gm(src), p.blockCount, p.blockLen * uint64_t{ga::kUbAlign},
                 p.dstStride * uint64_t{ga::kUbAlign}, p.srcStride * uint64_t{ga::kUbAlign});
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  namespace ga = gradops::ascendc;
  ga::CopyBlocks(ga::Gm(dst), ga::Ub(src.ref()), p.blockCount, p.blockLen * uint64_t{ga::kUbAlign},
                 p.dstStride * uint64_t{ga::kUbAlign}, p.srcStride * uint64_t{ga::kUbAlign});
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  namespace ga = gradops::ascendc;
  ga::CopyBlocks(ga::Ub(dst.ref()), ga::Ub(src.ref()), p.blockCount, p.blockLen * uint64_t{ga::kUbAlign},
                 p.dstStride * uint64_t{ga::kUbAlign}, p.srcStride * uint64_t{ga::kUbAlign});
}

}  // namespace AscendC
