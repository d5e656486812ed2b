// DataCopy's checks and copy (data_copy.h).
#include "gradops_ascendc/data_copy.h"

#include <cstring>
#include <string>

namespace gradops {
namespace ascendc {
namespace {

constexpr const char* kApi = "DataCopy";

// The address of `bytes` at `offset` from a copy end, after checking them.
uint8_t* Range(const CopyEnd& end, uint64_t offset, uint64_t bytes) {
  if (end.ub != nullptr) return SubRange(*end.ub, offset, bytes, kApi).data;
  uint8_t* p = end.gm + offset;
  CheckGmRange(p, bytes, "DataCopy GM range");
  return p;
}

void CheckUbEnd(const CopyEnd& end) {
  if (end.ub == nullptr) return;
  CheckUsable(*end.ub, kApi);
  const uint32_t offset = UbOffset(*end.ub);
  if (offset % kUbAlign != 0) {
    Fail("DataCopy alignment", "the UB address (offset " + std::to_string(offset) + ") is not 32-byte aligned");
  }
}

}  // namespace

void CopyBlocks(const CopyEnd& dst, const CopyEnd& src, uint64_t count, uint64_t block_bytes, uint64_t dst_gap,
                uint64_t src_gap) {
  if (block_bytes % kUbAlign != 0) {
    Fail("DataCopy length", std::to_string(block_bytes) + " bytes is not a multiple of 32 bytes");
  }
  CheckUbEnd(dst);
  CheckUbEnd(src);
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* to = Range(dst, i * (block_bytes + dst_gap), block_bytes);
    const uint8_t* from = Range(src, i * (block_bytes + src_gap), block_bytes);
    std::memmove(to, from, block_bytes);
  }
}

}  // namespace ascendc
}  // namespace gradops
