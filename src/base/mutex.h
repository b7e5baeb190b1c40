// A mutex the thread-safety analysis knows (base/thread_annotations.h), and its scoped lock.
// Mutex meets Lockable; MutexLock meets BasicLockable, so std::condition_variable_any waits on
// it.
#ifndef GANTRY_BASE_MUTEX_H_
#define GANTRY_BASE_MUTEX_H_

#include <mutex>

#include "base/thread_annotations.h"

namespace gantry {

class GANTRY_CAPABILITY("mutex") Mutex {
 public:
  void lock() GANTRY_ACQUIRE() { mu_.lock(); }
  bool try_lock() GANTRY_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  void unlock() GANTRY_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds `mu` from construction to destruction, less where unlock() gave it back.
class GANTRY_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) GANTRY_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() GANTRY_RELEASE() {
    if (held_) mu_.unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void lock() GANTRY_ACQUIRE() {
    mu_.lock();
    held_ = true;
  }
  void unlock() GANTRY_RELEASE() {
    held_ = false;
    mu_.unlock();
  }

 private:
  Mutex& mu_;
  bool held_ = true;
};

}  // namespace gantry

#endif  // GANTRY_BASE_MUTEX_H_
