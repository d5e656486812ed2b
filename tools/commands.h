// The subcommands of the gradops program.
#pragma once

namespace gradops {
namespace tool {

bool RunCheck();

}  // namespace tool
}  // namespace gradops
