// Global memory: GmAlloc'd regions in a registry (address -> size), shared
// by all blocks under a mutex, and the range checks against it.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

#include "gradops_ascendc/launch.h"
#include "gradops_ascendc/runtime.h"

namespace gradops {
namespace ascendc {
namespace {

constexpr size_t kGmAlign = 64;

std::mutex g_mutex;
std::map<uintptr_t, uint64_t>& Regions() {
  static std::map<uintptr_t, uint64_t> regions;
  return regions;
}

std::string Hex(const void* p) {
  std::ostringstream s;
  s << p;
  return s.str();
}

}  // namespace

void* GmAllocate(size_t bytes) {
  const size_t rounded = (bytes + kGmAlign - 1) / kGmAlign * kGmAlign;
  void* p = std::aligned_alloc(kGmAlign, rounded == 0 ? kGmAlign : rounded);
  if (p == nullptr) Fail("GmAlloc", "out of host memory for " + std::to_string(bytes) + " bytes");
  std::lock_guard<std::mutex> lock(g_mutex);
  Regions()[reinterpret_cast<uintptr_t>(p)] = bytes;
  return p;
}

void GmRelease(void* ptr) {
  if (ptr == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = Regions().find(reinterpret_cast<uintptr_t>(ptr));
    if (it != Regions().end()) {
      Regions().erase(it);
      std::free(ptr);
      return;
    }
  }
  Fail("GmFree", Hex(ptr) + " was not returned by GmAlloc, or was freed already");
}

bool InGm(const void* ptr, uint64_t bytes) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = Regions().upper_bound(p);
  if (it == Regions().begin()) return false;
  --it;
  const uint64_t offset = p - it->first;
  return offset <= it->second && bytes <= it->second - offset;
}

void CheckGmRange(const void* ptr, uint64_t bytes, const char* rule) {
  if (!InGm(ptr, bytes)) {
    Fail(rule, "GM bytes [" + Hex(ptr) + ", +" + std::to_string(bytes) + ") are not inside one GmAlloc region");
  }
}

void CopyFromGm(void* dst, const void* gm_src, size_t bytes) {
  CheckGmRange(gm_src, bytes, "GET_TILING_DATA: the tiling data must lie in GmAlloc memory");
  std::memcpy(dst, gm_src, bytes);
}

void CheckLaunchPointer(const char* kernel, int index, const void* arg) {
  if (arg == nullptr || InGm(arg, 0)) return;
  Fail("ICPU_RUN_KF", std::string("kernel '") + kernel + "': argument " + std::to_string(index) + " (" + Hex(arg) +
                          ") is not memory from AscendC::GmAlloc");
}

}  // namespace ascendc
}  // namespace gradops

namespace AscendC {
void* GmAlloc(size_t size) { return gradops::ascendc::GmAllocate(size); }
void GmFree(void* ptr) { gradops::ascendc::GmRelease(ptr); }
}  // namespace AscendC
