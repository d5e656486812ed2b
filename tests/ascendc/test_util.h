// Helpers of the AscendC tests: GM buffers, random data, the element types
// as gradops dtypes, and tolerant comparison with the float64 reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gradops/tensor.h"
#include "tikicpulib.h"

namespace ascendc_test {

// A GmAlloc'd array of n elements of T, freed on destruction.
template <typename T>
class GmArray {
 public:
  explicit GmArray(size_t n) : n_(n), data_(static_cast<T*>(AscendC::GmAlloc(n * sizeof(T)))) {}
  ~GmArray() { AscendC::GmFree(data_); }
  GmArray(const GmArray&) = delete;
  GmArray& operator=(const GmArray&) = delete;

  T* data() const { return data_; }
  uint8_t* gm() const { return reinterpret_cast<uint8_t*>(data_); }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  size_t n_;
  T* data_;
};

template <typename T>
constexpr gradops::DType DTypeOf() {
  return sizeof(T) == 2 ? gradops::DType::kFloat16 : gradops::DType::kFloat32;
}

// Deterministic uniform values in [lo, hi).
class Random {
 public:
  explicit Random(uint32_t seed) : state_(seed) {}
  float Uniform(float lo, float hi) {
    state_ = state_ * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(state_ >> 8) / 16777216.0f;
  }

 private:
  uint32_t state_;
};

// Every |got[i] - want[i]| <= atol * max(1, max|want|) + rtol * |want[i]|;
// returns "" or a description of the first failure.
template <typename T>
std::string Compare(const T* got, const std::vector<double>& want, double rtol, double atol);

}  // namespace ascendc_test
