// The gradops program: `gradops check` compares every operator with the
// float64 reference; `gradops bench` measures them against the memory
// bandwidth ceiling; `gradops accuracy` reports errors on the bench's inputs.
#include <cstdio>
#include <cstring>

#include "commands.h"

namespace {

void Usage() {
  std::fprintf(stderr,
               "usage: gradops check                 every operator and dtype against the float64 reference\n"
               "       gradops bench [--quick] [--json] [--only NAME] [--device cpu|cuda] [--huge-pages]\n"
               "                     [--staggered]   time every operator; ratio to the triad ceiling\n"
               "                                     (--huge-pages: CPU buffers, ceiling's too, on large pages;\n"
               "                                     --staggered: at staggered page offsets, as aclrtMalloc places them)\n"
               "       gradops accuracy [--quick]    errors against the reference on the benchmark's inputs\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "check") == 0 && argc == 2) return gradops::tool::RunCheck() ? 0 : 1;
  if (argc >= 2 && std::strcmp(argv[1], "bench") == 0) {
    gradops::tool::BenchOptions options;
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--quick") == 0) {
        options.quick = true;
      } else if (std::strcmp(argv[i], "--json") == 0) {
        options.json = true;
      } else if (std::strcmp(argv[i], "--huge-pages") == 0) {
        options.memory.huge_pages = true;
      } else if (std::strcmp(argv[i], "--staggered") == 0) {
        options.memory.staggered = true;
      } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
        options.filter = argv[++i];
      } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc &&
                 (std::strcmp(argv[i + 1], "cpu") == 0 || std::strcmp(argv[i + 1], "cuda") == 0)) {
        options.device = argv[++i];
      } else {
        Usage();
        return 2;
      }
    }
    return options.device == "cuda" ? gradops::tool::RunBenchCuda(options) : gradops::tool::RunBench(options);
  }
  if (argc >= 2 && std::strcmp(argv[1], "accuracy") == 0) {
    const bool quick = argc == 3 && std::strcmp(argv[2], "--quick") == 0;
    if (argc == 2 || quick) return gradops::tool::RunAccuracy(quick);
  }
  Usage();
  return 2;
}
