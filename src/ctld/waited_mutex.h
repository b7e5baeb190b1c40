// A reader-writer mutex that knows how many threads wait for it, so that a long holder (the
// scheduling pass) gives way only when a request actually waits. Meets the SharedMutex
// requirements: std::unique_lock and std::shared_lock work on it as on std::shared_mutex.
#ifndef GANTRY_CTLD_WAITED_MUTEX_H_
#define GANTRY_CTLD_WAITED_MUTEX_H_

#include <atomic>
#include <shared_mutex>

namespace gantry::ctld {

class WaitedMutex {
 public:
  void lock() {
    if (mu_.try_lock()) return;
    waiting_.fetch_add(1, std::memory_order_relaxed);
    mu_.lock();
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }
  bool try_lock() { return mu_.try_lock(); }
  void unlock() { mu_.unlock(); }
  void lock_shared() {
    if (mu_.try_lock_shared()) return;
    waiting_.fetch_add(1, std::memory_order_relaxed);
    mu_.lock_shared();
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }
  bool try_lock_shared() { return mu_.try_lock_shared(); }
  void unlock_shared() { mu_.unlock_shared(); }

  // Threads blocked in lock() or lock_shared() now (a hint: it may change at once).
  int waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  std::shared_mutex mu_;
  std::atomic<int> waiting_{0};
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_WAITED_MUTEX_H_
