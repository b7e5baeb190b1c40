// A mutex the thread-safety analysis knows (base/thread_annotations.h), and scoped locks.
// Mutex meets Lockable; ExclusiveLock meets BasicLockable, so std::condition_variable_any waits
// on it.
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

// Holds `mu` (any lock the analysis knows, with lock() and unlock()) exclusively from
// construction to destruction, less where unlock() gave it back.
template <typename M>
class GANTRY_SCOPED_CAPABILITY ExclusiveLock {
 public:
  explicit ExclusiveLock(M& mu) GANTRY_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~ExclusiveLock() GANTRY_RELEASE() {
    if (held_) mu_.unlock();
  }
  ExclusiveLock(const ExclusiveLock&) = delete;
  ExclusiveLock& operator=(const ExclusiveLock&) = delete;

  void lock() GANTRY_ACQUIRE() {
    mu_.lock();
    held_ = true;
  }
  void unlock() GANTRY_RELEASE() {
    held_ = false;
    mu_.unlock();
  }

 private:
  M& mu_;
  bool held_ = true;
};

using MutexLock = ExclusiveLock<Mutex>;

}  // namespace gantry

#endif  // GANTRY_BASE_MUTEX_H_
