// Whether this build runs under AddressSanitizer (GCC's -fsanitize=address or
// clang's), for code that must tell it about memory it cannot see itself:
// mappings of our own, fiber stacks. GRADOPS_ASAN is 1 in such builds, and
// the sanitizer's interface is then included.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define GRADOPS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRADOPS_ASAN 1
#endif
#endif

#ifdef GRADOPS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
