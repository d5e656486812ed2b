// The gradops program: `gradops check` compares every operator with the
// float64 reference.
#include <cstdio>
#include <cstring>

#include "commands.h"

namespace {

void Usage() {
  std::fprintf(stderr,
               "usage: gradops check    every operator and dtype against the float64 reference\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    Usage();
    return 2;
  }
  if (std::strcmp(argv[1], "check") == 0) return gradops::tool::RunCheck() ? 0 : 1;
  Usage();
  return 2;
}
