#include "ctld/waited_mutex.h"

#include <gtest/gtest.h>

#include <thread>

namespace gantry::ctld {
namespace {

// Spins until `mu` counts `n` waiters (the test's threads block on it for as long as it takes).
void AwaitWaiters(const WaitedMutex& mu, int n) {
  while (mu.waiting() != n) std::this_thread::yield();
}

TEST(WaitedMutexTest, CountsTheThreadsBlockedOnItWritersAndReaders) {
  WaitedMutex mu;
  EXPECT_EQ(mu.waiting(), 0);
  WriterLock holder(mu);
  std::thread writer([&mu] { WriterLock lock(mu); });
  AwaitWaiters(mu, 1);
  std::thread reader([&mu] { ReaderLock lock(mu); });
  AwaitWaiters(mu, 2);
  holder.unlock();
  writer.join();
  reader.join();
  EXPECT_EQ(mu.waiting(), 0);
}

TEST(WaitedMutexTest, ReadersShareItWithoutWaiting) {
  WaitedMutex mu;
  ReaderLock first(mu);
  ReaderLock second(mu);
  EXPECT_EQ(mu.waiting(), 0);
  EXPECT_FALSE(mu.try_lock());
}

TEST(WaitedMutexTest, AScopedLockGivesItBackEarlyOnceAndTakesItAgain) {
  WaitedMutex mu;
  {
    WriterLock lock(mu);
    EXPECT_FALSE(mu.try_lock_shared());
    lock.unlock();
    EXPECT_TRUE(mu.try_lock_shared());  // given back: others may take it
    mu.unlock_shared();
    lock.lock();
    EXPECT_FALSE(mu.try_lock_shared());
  }
  {
    ReaderLock lock(mu);
    EXPECT_FALSE(mu.try_lock());
    lock.unlock();
    EXPECT_TRUE(mu.try_lock());
    mu.unlock();
  }  // unlocked already: the destructor leaves it alone
  EXPECT_TRUE(mu.try_lock());
  mu.unlock();
}

}  // namespace
}  // namespace gantry::ctld
