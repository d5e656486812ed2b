#include "cpu/cpu_model.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define GRADOPS_X86_CPUID 1
#include <cpuid.h>
#endif

namespace gradops {
namespace cpu {
namespace {

CpuModel ReadCpuModel() {
#ifdef GRADOPS_X86_CPUID
  __builtin_cpu_init();  // where this runs before the constructors (a plan made by a static initializer)
  if (__builtin_cpu_is("intel")) return CpuModel::kIntel;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__builtin_cpu_is("amd") || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return CpuModel::kOther;
  const unsigned family = ((eax >> 8) & 0xF) + ((eax >> 20) & 0xFF);  // base + extended
  return family >= 0x1A ? CpuModel::kZen5 : CpuModel::kAmd;
#else
  return CpuModel::kOther;
#endif
}

}  // namespace

CpuModel ThisCpu() {
  static const CpuModel model = ReadCpuModel();
  return model;
}

}  // namespace cpu
}  // namespace gradops
