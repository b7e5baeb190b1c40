#include "proc/usage_sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "proc/proc.h"

namespace gantry::proc {
namespace {

TEST(UsageSamples, KeepTheMostAndTheAverage) {
  UsageSamples s;
  AddSample(&s, 100, 1000, 10, 0);
  AddSample(&s, 300, 900, 5, 50);
  EXPECT_EQ(s.samples, 2u);
  EXPECT_EQ(s.max_rss_kib, 300u);
  EXPECT_EQ(s.max_vmsize_kib, 1000u);
  EXPECT_EQ(s.ave_rss_kib(), 200u);
  EXPECT_EQ(s.ave_vmsize_kib(), 950u);
  EXPECT_EQ(s.read_bytes, 10u);
  EXPECT_EQ(s.write_bytes, 50u);
  EXPECT_EQ(UsageSamples().ave_rss_kib(), 0u);
}

TEST(ParseIoStat, SumsEveryDevice) {
  uint64_t read = 1;
  uint64_t written = 1;
  ParseIoStat(
      "8:0 rbytes=4096 wbytes=1000 rios=1 wios=2 dbytes=0 dios=0\n"
      "259:0 rbytes=100 wbytes=24 rios=1 wios=1 dbytes=0 dios=0\n",
      &read, &written);
  EXPECT_EQ(read, 4196u);
  EXPECT_EQ(written, 1024u);
  ParseIoStat("", &read, &written);
  EXPECT_EQ(read, 0u);
}

TEST(UsageSampler, SeesTheMemoryOfTheJobsProcesses) {
  // A "job": a child in its own session that holds 64 MiB it has touched.
  constexpr size_t kBytes = size_t{64} << 20;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setsid();
    volatile char* block = static_cast<char*>(std::malloc(kBytes));  // volatile: kept
    for (size_t i = 0; i < kBytes; i += 4096) block[i] = 1;
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  UsageSampler sampler([child] { return GroupOrSessionMembers(child, child); }, "",
                       std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const UsageSamples seen = sampler.Stop();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  EXPECT_GE(seen.samples, 2u);
  EXPECT_GE(seen.max_rss_kib, kBytes / 1024);
  EXPECT_GE(seen.max_vmsize_kib, seen.max_rss_kib);
  EXPECT_GE(seen.ave_rss_kib(), kBytes / 1024);
  EXPECT_EQ(sampler.Stop().samples, seen.samples);  // idempotent
}

}  // namespace
}  // namespace gantry::proc
