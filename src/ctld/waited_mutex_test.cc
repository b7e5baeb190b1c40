#include "ctld/waited_mutex.h"

#include <gtest/gtest.h>

#include <mutex>
#include <shared_mutex>
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
  std::unique_lock holder(mu);
  std::thread writer([&mu] { std::unique_lock lock(mu); });
  AwaitWaiters(mu, 1);
  std::thread reader([&mu] { std::shared_lock lock(mu); });
  AwaitWaiters(mu, 2);
  holder.unlock();
  writer.join();
  reader.join();
  EXPECT_EQ(mu.waiting(), 0);
}

TEST(WaitedMutexTest, ReadersShareItWithoutWaiting) {
  WaitedMutex mu;
  std::shared_lock first(mu);
  std::shared_lock second(mu);
  EXPECT_EQ(mu.waiting(), 0);
  EXPECT_FALSE(mu.try_lock());
}

}  // namespace
}  // namespace gantry::ctld
