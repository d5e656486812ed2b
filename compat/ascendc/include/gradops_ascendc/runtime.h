// The emulated machine behind the kernel headers: diagnostics, the running
// block, global memory (GM) regions and the per-block Unified Buffer (UB).
// Every rule violation ends the program through Fail, with a message that
// names the kernel, the block and the rule; nothing is written after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gradops {
namespace ascendc {

// The UB of one Atlas A2 vector core, and the granule of its addresses.
constexpr uint32_t kUbCapacity = 192 * 1024;
constexpr uint32_t kUbAlign = 32;

// Prints "AscendC error: kernel 'K', block I of N: RULE: DETAIL" (or "host
// code" outside a launch) on stderr and exits the process with status 1.
[[noreturn]] void Fail(const std::string& rule, const std::string& detail);

// The running block; both fail outside a kernel launch.
int64_t CurrentBlockIdx();
int64_t CurrentBlockNum();

// The UB of the running block: its base address, the bytes reserved by the
// live TPipe, and the rest, which the high-level APIs may use as temporary
// space when no sharedTmpBuffer is given.
uint8_t* UbBase();
uint32_t UbReserved();
uint32_t UbFree();

// Global memory. A range is valid when it lies inside one live GmAlloc
// region; CheckGmRange fails with `rule` otherwise.
void* GmAllocate(size_t bytes);
void GmRelease(void* ptr);
bool InGm(const void* ptr, uint64_t bytes);
void CheckGmRange(const void* ptr, uint64_t bytes, const char* rule);

// The key set by ICPU_SET_TILING_KEY, for TILING_KEY_IS.
void SetTilingKey(uint64_t key);
uint64_t TilingKey();

// Copies `bytes` of tiling data from GM (GET_TILING_DATA).
void CopyFromGm(void* dst, const void* gm_src, size_t bytes);

}  // namespace ascendc
}  // namespace gradops
