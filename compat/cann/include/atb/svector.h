// gradops CANN compatibility: atb::SVector, a vector with inline storage.
//
// Up to DEFAULT_SVECTOR_SIZE elements live inside the object; larger vectors
// (up to MAX_SVECTOR_SIZE) move to the heap. Going past MAX_SVECTOR_SIZE
// throws MaxSizeExceeded; operator[] and at() throw std::out_of_range. Every
// constructor sets the size, whatever the number of elements. C++11.
#ifndef GRADOPS_COMPAT_ATB_SVECTOR_H_
#define GRADOPS_COMPAT_ATB_SVECTOR_H_

#include <cstddef>
#include <exception>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace atb {

constexpr size_t MAX_SVECTOR_SIZE = 256;
constexpr size_t DEFAULT_SVECTOR_SIZE = 64;
constexpr bool CHECK_BOUND = true;

struct MaxSizeExceeded : public std::exception {
  MaxSizeExceeded(size_t size, size_t capacity)
      : message_("SVector: size " + std::to_string(size) + " exceeds the capacity " + std::to_string(capacity)) {}
  explicit MaxSizeExceeded(size_t size) : MaxSizeExceeded(size, MAX_SVECTOR_SIZE) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

template <class T>
class SVector {
 public:
  SVector() : size_(0) {}
  SVector(std::initializer_list<T> list) { Assign(list.begin(), list.size()); }
  explicit SVector(size_t size, const T& value = T()) {
    Grow(size);
    for (size_t i = 0; i < size; ++i) data()[i] = value;
    size_ = size;
  }
  SVector(const SVector& other) { Assign(other.begin(), other.size()); }
  SVector(SVector&& other) { Assign(other.begin(), other.size()); }
  ~SVector() = default;

  SVector& operator=(const SVector& other) {
    if (this != &other) Assign(other.begin(), other.size());
    return *this;
  }
  SVector& operator=(SVector&& other) {
    if (this != &other) Assign(other.begin(), other.size());
    return *this;
  }
  SVector& operator=(std::initializer_list<T> list) {
    Assign(list.begin(), list.size());
    return *this;
  }

  void push_back(const T& value) {
    const T copy = value;  // value may live inside this vector
    Grow(size_ + 1);
    data()[size_++] = copy;
  }
  void insert(size_t pos, const T& value) {
    if (pos > size_) throw std::out_of_range("SVector::insert: position past the end");
    const T copy = value;
    Grow(size_ + 1);
    T* d = data();
    for (size_t i = size_; i > pos; --i) d[i] = d[i - 1];
    d[pos] = copy;
    ++size_;
  }

  T* begin() noexcept { return data(); }
  const T* begin() const noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* end() const noexcept { return data() + size_; }
  T* data() noexcept { return heap_ ? heap_.get() : inline_; }
  const T* data() const noexcept { return heap_ ? heap_.get() : inline_; }

  T& operator[](size_t i) { return at(i); }
  const T& operator[](size_t i) const { return at(i); }
  T& at(size_t i) {
    if (i >= size_) throw std::out_of_range("SVector: index out of range");
    return data()[i];
  }
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("SVector: index out of range");
    return data()[i];
  }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept { size_ = 0; }
  // New elements (when growing) are value-initialized.
  void resize(size_t size) {
    Grow(size);
    for (size_t i = size_; i < size; ++i) data()[i] = T();
    size_ = size;
  }
  // Makes room for `capacity` elements; keeps the contents.
  void reserve(size_t capacity) { Grow(capacity); }

  bool operator==(const SVector& other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
      if (!(data()[i] == other.data()[i])) return false;
    }
    return true;
  }
  bool operator!=(const SVector& other) const { return !(*this == other); }
  // Shorter vectors order first; equal sizes compare element by element.
  bool operator<(const SVector& other) const {
    if (size_ != other.size_) return size_ < other.size_;
    for (size_t i = 0; i < size_; ++i) {
      if (data()[i] < other.data()[i]) return true;
      if (other.data()[i] < data()[i]) return false;
    }
    return false;
  }

 private:
  // Ensures room for n elements, moving to the heap past the inline capacity.
  void Grow(size_t n) {
    if (n > MAX_SVECTOR_SIZE) throw MaxSizeExceeded(n, MAX_SVECTOR_SIZE);
    if (n <= DEFAULT_SVECTOR_SIZE || heap_) return;
    std::unique_ptr<T[]> heap(new T[MAX_SVECTOR_SIZE]());
    const size_t kept = size_ < DEFAULT_SVECTOR_SIZE ? size_ : DEFAULT_SVECTOR_SIZE;  // always size_ here
    for (size_t i = 0; i < kept; ++i) heap[i] = inline_[i];
    heap_ = std::move(heap);
  }
  void Assign(const T* values, size_t n) {
    if (n > MAX_SVECTOR_SIZE) throw MaxSizeExceeded(n, MAX_SVECTOR_SIZE);
    size_ = 0;
    Grow(n);
    for (size_t i = 0; i < n; ++i) data()[i] = values[i];
    size_ = n;
  }

  size_t size_ = 0;
  T inline_[DEFAULT_SVECTOR_SIZE] = {};
  std::unique_ptr<T[]> heap_;
};

// Elements separated by commas, as "1,2,3".
template <class T>
std::ostream& operator<<(std::ostream& os, const SVector<T>& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ",";
    os << v[i];
  }
  return os;
}

}  // namespace atb

#endif  // GRADOPS_COMPAT_ATB_SVECTOR_H_
