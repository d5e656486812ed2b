// Compiles the LayerNormGrad kernel sample of the source document 001 as
// written (extracted from the document at test time), with a host program
// of this project, runs it and checks its results. Skipped, visibly, when
// the documents are not available.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

// The document whose name starts with "001_", or an empty path.
fs::path FindSeed() {
  std::error_code ec;
  if (!fs::is_directory(GRADOPS_SEEDS_DIR, ec)) return {};
  for (const fs::directory_entry& e : fs::directory_iterator(GRADOPS_SEEDS_DIR, ec)) {
    if (e.path().filename().string().rfind("001_", 0) == 0) return e.path();
  }
  return {};
}

// The kernel code: from `#include "kernel_operator.h"` to the end.
std::string ExtractKernel(const fs::path& seed) {
  std::ifstream in(seed);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const size_t start = all.find("#include \"kernel_operator.h\"");
  return start == std::string::npos ? "" : all.substr(start);
}

int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) *output += buffer;
  return pclose(pipe);
}

TEST(AscendCSeedSample, LayerNormGradKernelCompilesAndMatchesReference) {
  const fs::path seed = FindSeed();
  if (seed.empty()) GTEST_SKIP() << "source document 001 not found in " << GRADOPS_SEEDS_DIR;
  const std::string kernel = ExtractKernel(seed);
  ASSERT_FALSE(kernel.empty()) << "no kernel code block in " << seed;

  const fs::path dir = GRADOPS_SEED_WORKDIR;
  fs::create_directories(dir);
  const fs::path kernel_file = dir / "seed001_kernel.cc";
  std::ofstream(kernel_file) << "#include \"" << GRADOPS_SEED_PRELUDE << "\"\n" << kernel;
  const fs::path program = dir / "seed001";

  std::string output;
  const std::string compile = std::string(GRADOPS_TEST_CXX) + " -std=c++17 -O1 " + GRADOPS_SEED_INCLUDES + " " +
                              kernel_file.string() + " " + GRADOPS_SEED_HOST + " -o " + program.string() + " " +
                              GRADOPS_SEED_LIBS;
  ASSERT_EQ(RunCommand(compile, &output), 0) << compile << "\n" << output;
  output.clear();
  EXPECT_EQ(RunCommand(program.string(), &output), 0) << output;
  EXPECT_NE(output.find("test pass!"), std::string::npos) << output;
}

}  // namespace
