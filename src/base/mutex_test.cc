#include "base/mutex.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <thread>

namespace gantry {
namespace {

TEST(MutexTest, AScopedLockHoldsItUntilItGivesItBack) {
  Mutex mu;
  {
    MutexLock lock(mu);
    EXPECT_FALSE(mu.try_lock());
    lock.unlock();
    EXPECT_TRUE(mu.try_lock());
    mu.unlock();
    lock.lock();
    EXPECT_FALSE(mu.try_lock());
  }
  EXPECT_TRUE(mu.try_lock());
  mu.unlock();
}

TEST(MutexTest, AConditionVariableWaitsOnTheScopedLock) {
  Mutex mu;
  std::condition_variable_any cv;
  bool ready = false;  // guarded by mu
  std::thread setter([&] {
    MutexLock lock(mu);
    ready = true;
    cv.notify_one();
  });
  {
    MutexLock lock(mu);
    cv.wait(lock, [&] { return ready; });
    EXPECT_TRUE(ready);
  }
  setter.join();
}

}  // namespace
}  // namespace gantry
