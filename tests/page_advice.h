// Test support: what the kernel was told about the pages of an allocation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace gradops {
namespace test {

// Whether the mapping that holds `p` is advised for transparent huge pages
// (flag "hg" of its VmFlags in /proc/self/smaps); nothing where the kernel
// does not say (no smaps, or no transparent huge pages at all).
inline std::optional<bool> AdvisedForHugePages(const void* p) {
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::ifstream smaps("/proc/self/smaps");
  if (!thp || !smaps) return std::nullopt;
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &begin, &end) == 2 && line.find('-') < line.find(' ')) {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      std::istringstream flags(line.substr(8));
      std::string flag;
      while (flags >> flag) {
        if (flag == "hg") return true;
      }
      return false;
    }
  }
  return std::nullopt;
}

}  // namespace test
}  // namespace gradops
