// A reader-writer mutex that knows how many threads wait for it, so that a long holder (the
// scheduling pass) gives way only when a request actually waits; WriterLock and ReaderLock hold
// it for a scope. The thread-safety analysis knows all three (base/thread_annotations.h).
#ifndef GANTRY_CTLD_WAITED_MUTEX_H_
#define GANTRY_CTLD_WAITED_MUTEX_H_

#include <atomic>
#include <shared_mutex>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gantry::ctld {

class GANTRY_CAPABILITY("mutex") WaitedMutex {
 public:
  void lock() GANTRY_ACQUIRE() {
    if (mu_.try_lock()) return;
    waiting_.fetch_add(1, std::memory_order_relaxed);
    mu_.lock();
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }
  bool try_lock() GANTRY_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  void unlock() GANTRY_RELEASE() { mu_.unlock(); }
  void lock_shared() GANTRY_ACQUIRE_SHARED() {
    if (mu_.try_lock_shared()) return;
    waiting_.fetch_add(1, std::memory_order_relaxed);
    mu_.lock_shared();
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }
  bool try_lock_shared() GANTRY_TRY_ACQUIRE_SHARED(true) { return mu_.try_lock_shared(); }
  void unlock_shared() GANTRY_RELEASE_SHARED() { mu_.unlock_shared(); }

  // Threads blocked in lock() or lock_shared() now (a hint: it may change at once).
  int waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  std::shared_mutex mu_;
  std::atomic<int> waiting_{0};
};

using WriterLock = ExclusiveLock<WaitedMutex>;  // holds it exclusively

// Holds `mu` shared from construction to destruction, less where unlock() gave it back.
class GANTRY_SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(WaitedMutex& mu) GANTRY_ACQUIRE_SHARED(mu) : mu_(mu) { mu_.lock_shared(); }
  ~ReaderLock() GANTRY_RELEASE() {
    if (held_) mu_.unlock_shared();
  }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

  void unlock() GANTRY_RELEASE() {
    held_ = false;
    mu_.unlock_shared();
  }

 private:
  WaitedMutex& mu_;
  bool held_ = true;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_WAITED_MUTEX_H_
