// The state of one running block, private to the emulation: which kernel
// and block it is, its core type, its UB and the TPipe that owns part of it.
#pragma once

#include <cstdint>
#include <memory>

namespace gradops {
namespace ascendc {

struct BlockContext {
  const char* kernel = "";
  int64_t idx = 0;
  int64_t num = 1;
  bool cube = false;  // AIC_MODE
  uint8_t* ub = nullptr;
  uint32_t reserved = 0;  // bytes of the UB held by the live TPipe
  bool pipe_live = false;
};

// The running block, or null in host code.
BlockContext* CurrentBlockOrNull();

// The running block; `api` names the caller when there is none.
BlockContext& CurrentBlock(const char* api);

}  // namespace ascendc
}  // namespace gradops
