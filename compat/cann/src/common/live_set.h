// A thread-safe set of the live handles of one kind (tensors, executors,
// streams, ...). Front ends register what they create and look handles up
// before use, so a stale or foreign handle becomes an error code instead of a
// use after free.
#pragma once

#include <mutex>
#include <unordered_set>

namespace gradops {
namespace cann {

template <typename T>
class LiveSet {
 public:
  void Add(const T* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    handles_.insert(handle);
  }
  // False when `handle` was not live.
  bool Remove(const T* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    return handles_.erase(handle) == 1;
  }
  bool Contains(const T* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return handles_.count(handle) == 1;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<const T*> handles_;
};

// The process-wide set for handles of type T, created on first use.
template <typename T>
LiveSet<T>& Live() {
  static LiveSet<T>* set = new LiveSet<T>();  // never destroyed: handles may outlive static teardown
  return *set;
}

}  // namespace cann
}  // namespace gradops
