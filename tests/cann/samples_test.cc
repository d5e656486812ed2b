// The sample programs: gradops' own (examples/), run and their printed
// numbers checked against the float64 reference; and the samples of the
// source documents, extracted from ../shared/seeds at test time, compiled
// unchanged against the CANN-path headers, linked with CANN's library names
// and run. Without the documents those tests are skipped, visibly.
// Each program runs on the CPU device and, with GRADOPS_ACL_DEVICE=cuda, on
// CUDA device 0; where there is no GPU the CUDA runs are skipped, visibly.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <sys/stat.h>

#include "ref/reference.h"
#include "test_util.h"
#ifdef GRADOPS_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace cann_test {
namespace {

// The device kind a test's programs run on: its GRADOPS_ACL_DEVICE value.
class OnDevice : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cuda") return;
#ifdef GRADOPS_HAVE_CUDA
    if (gradops::cuda::DeviceCount() > 0) return;
    GTEST_SKIP() << "no CUDA device on this machine: GPU run skipped, nothing ran";
#else
    GTEST_SKIP() << "built without the CUDA backend: GPU run skipped, nothing ran";
#endif
  }
  // The shell prefix that selects the device kind.
  std::string Env() const { return "GRADOPS_ACL_DEVICE=" + GetParam() + " "; }
};

std::string DeviceName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

std::string RunOk(const std::string& command) {
  std::string output;
  const int status = RunCommand(command + " 2>&1", &output);
  EXPECT_EQ(status, 0) << command << "\n" << output;
  return output;
}

// A view of printed values; a program that printed too few (or failed to
// run) fails the test, and the view is padded with NaN rather than read past.
gradops::TensorView HostView(std::vector<float>& values, std::initializer_list<int64_t> shape) {
  size_t count = 1;
  for (int64_t s : shape) count *= static_cast<size_t>(s);
  if (values.size() != count) {
    ADD_FAILURE() << "the program printed " << values.size() << " values where " << count << " were expected";
    values.resize(count, std::numeric_limits<float>::quiet_NaN());
  }
  return gradops::Contiguous(values.data(), gradops::DType::kFloat32, shape);
}

std::vector<float> Floats(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

void ExpectClose(const std::vector<double>& printed, const std::vector<double>& expected, double tol) {
  ASSERT_EQ(printed.size(), expected.size());
  EXPECT_LE(ErrorRatio(printed, expected, tol, tol), 1.0);
}

// The LayerNorm backward reference for printed fp32 inputs of an M x N problem.
gradops::ref::NormGrads LayerNormExpected(const std::string& out, const char* dy_name, const char* x_name,
                                          const std::vector<double>& mean_values,
                                          const std::vector<double>& rstd_values,
                                          const std::vector<double>& weight_values, int64_t M, int64_t N) {
  std::vector<float> dy = Floats(ParseValues(out, dy_name)), x = Floats(ParseValues(out, x_name));
  std::vector<float> mean = Floats(mean_values), rstd = Floats(rstd_values), weight = Floats(weight_values);
  gradops::LayerNormBackwardArgs a;
  a.dy = HostView(dy, {M, N});
  a.x = HostView(x, {M, N});
  a.mean = HostView(mean, {M});
  a.rstd = HostView(rstd, {M});
  gradops::TensorView w = HostView(weight, {N});
  a.gamma = &w;
  return gradops::ref::LayerNormBackward(a);
}

using Examples = OnDevice;

TEST_P(Examples, AclnnLayerNormBackward) {
  const std::string out = RunOk(Env() + CANN_EXAMPLE_ACLNN_LAYER_NORM_BACKWARD);
  const auto want = LayerNormExpected(out, "dy", "x", ParseValues(out, "mean"), ParseValues(out, "rstd"),
                                      ParseValues(out, "weight"), 3, 4);
  ExpectClose(ParseValues(out, "dx"), want.dx, 1e-5);
  ExpectClose(ParseValues(out, "dgamma"), want.dgamma, 1e-5);
  ExpectClose(ParseValues(out, "dbeta"), want.dbeta, 1e-5);
}

TEST_P(Examples, AclnnSiluBackward) {
  const std::string out = RunOk(Env() + CANN_EXAMPLE_ACLNN_SILU_BACKWARD);
  std::vector<float> dy = Floats(ParseValues(out, "dy")), x = Floats(ParseValues(out, "x"));
  gradops::SiluBackwardArgs a;
  a.dy = HostView(dy, {1, 4});
  a.x = HostView(x, {2, 4});
  std::vector<float> dx(8);
  a.dx = HostView(dx, {2, 4});
  ExpectClose(ParseValues(out, "dx"), gradops::ref::SiluBackward(a), 4e-3);  // float16 results
}

TEST_P(Examples, AtbRmsNormBackward) {
  const std::string out = RunOk(Env() + CANN_EXAMPLE_ATB_RMS_NORM_BACKWARD);
  std::vector<float> dy = Floats(ParseValues(out, "dy")), x = Floats(ParseValues(out, "x"));
  std::vector<float> rstd = Floats(ParseValues(out, "rstd")), gamma = Floats(ParseValues(out, "gamma"));
  gradops::RmsNormBackwardArgs a;
  a.dy = HostView(dy, {6, 4});
  a.x = HostView(x, {6, 4});
  a.rstd = HostView(rstd, {6});
  a.gamma = HostView(gamma, {4});
  const auto want = gradops::ref::RmsNormBackward(a);
  ExpectClose(ParseValues(out, "dx"), want.dx, 1e-5);
  ExpectClose(ParseValues(out, "dgamma"), want.dgamma, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Devices, Examples, ::testing::Values("cpu", "cuda"), DeviceName);

// --- the source documents' samples ---

const std::string kSeeds = std::string(GRADOPS_SOURCE_DIR) + "/../shared/seeds/";

// The sample program of a seed document: from its first "#include <iostream>"
// line to the end, or to the document's closing "父主题" (parent topic) line.
std::string ExtractSample(const std::string& file) {
  std::ifstream in(kSeeds + file);
  std::string line, code;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.rfind("#include <iostream>", 0) == 0) inside = true;
    if (inside && line.rfind("父主题", 0) == 0) break;
    if (inside) code += line + "\n";
  }
  return code;
}

// Compiles a seed sample as a CANN user would (CANN include paths and
// library names) and returns what it prints, run with the `env` prefix.
std::string BuildAndRunSeed(const std::string& file, const std::string& name, const std::string& env) {
  const std::string code = ExtractSample(file);
  EXPECT_FALSE(code.empty()) << "no sample found in " << file;
  const std::string dir = GRADOPS_SEED_WORK_DIR;
  mkdir(dir.c_str(), 0755);
  const std::string source = dir + "/" + name + ".cpp", binary = dir + "/" + name;
  std::ofstream(source) << code;
  const std::string root = GRADOPS_SOURCE_DIR;
  RunOk(std::string(GRADOPS_CXX) + " -std=c++17 -w " + GRADOPS_SEED_FLAGS + " " + source + " -I" + root +
        "/compat/cann/include -I" + root + "/examples/atb -L" + GRADOPS_CANN_LIBRARY_DIR + " -Wl,-rpath," +
        GRADOPS_LIBRARY_DIR + " -lascendcl -lnnopbase -lopapi -latb -o " + binary);
  return RunOk(env + binary);
}

class SeedSamples : public OnDevice {
 protected:
  void SetUp() override {
    OnDevice::SetUp();
    if (IsSkipped()) return;
    struct stat info;
    if (stat(kSeeds.c_str(), &info) != 0) GTEST_SKIP() << "the source documents are not at " << kSeeds;
  }
  std::string Run(const std::string& file, const std::string& name) {
    return BuildAndRunSeed(file, name + "_" + GetParam(), Env());
  }
};

TEST_P(SeedSamples, AclnnLayerNormBackward) {
  const std::string out = Run("000_384d795ae5b6b8f0.txt", "seed_layer_norm_backward");
  // The document's inputs: dy = x = {2, 3, 4, 5}, mean {2, 3}, rstd {4, 5}, weight ones.
  std::ostringstream inputs;
  for (int i = 0; i < 4; ++i) inputs << "v[" << i << "] = " << (i + 2) << "\n";
  const auto want = LayerNormExpected(inputs.str(), "v", "v", {2, 3}, {4, 5}, {1, 1}, 2, 2);
  ExpectClose(ParseValues(out, "out result"), want.dx, 1e-6);
  ExpectClose(ParseValues(out, "dw result"), want.dgamma, 1e-6);
  ExpectClose(ParseValues(out, "db result"), want.dbeta, 1e-6);
}

TEST_P(SeedSamples, AclnnSiluBackward) {
  const std::string out = Run("002_b0f01599650297fd.txt", "seed_silu_backward");
  std::vector<float> dy(6, 1.0f), x = {1, 2, 3, 4, 5, 6}, dx(6);
  gradops::SiluBackwardArgs a;
  a.dy = HostView(dy, {2, 3});
  a.x = HostView(x, {2, 3});
  a.dx = HostView(dx, {2, 3});
  ExpectClose(ParseValues(out, "out result"), gradops::ref::SiluBackward(a), 1e-5);  // printed with %f
}

TEST_P(SeedSamples, AtbRmsNormBackward) {
  const std::string out = Run("003_d551e5f9452120a5.txt", "seed_rms_norm_backward");
  EXPECT_NE(out.find("Rmsnorm backward demo success!"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(Devices, SeedSamples, ::testing::Values("cpu", "cuda"), DeviceName);

}  // namespace
}  // namespace cann_test
