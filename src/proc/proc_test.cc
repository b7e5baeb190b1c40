#include "proc/proc.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace gantry::proc {
namespace {

TEST(ParseProcStat, ReadsFieldsAfterTheCommandName) {
  std::optional<ProcStat> stat = ParseProcStat(
      "4242 (we (ird) name) S 1 4242 4240 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 "
      "1000 200 18446744073709551615\n");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->pgid, 4242);
  EXPECT_EQ(stat->sid, 4240);
  EXPECT_EQ(stat->start_ticks, 987654u);
  EXPECT_EQ(stat->vsize_bytes, 1000u);
  EXPECT_EQ(stat->rss_pages, 200u);
  EXPECT_FALSE(ParseProcStat("").has_value());
  EXPECT_FALSE(ParseProcStat("12 (x) S 1 2").has_value());
  EXPECT_FALSE(ParseProcStat("x (y) S 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 5").has_value());
}

TEST(ReadProcStat, SeesThisProcess) {
  std::optional<ProcStat> self = ReadProcStat(getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->pid, getpid());
  EXPECT_EQ(self->pgid, getpgrp());
  EXPECT_EQ(self->sid, getsid(0));
}

TEST(ParseProcIo, ReadsTheStorageCounters) {
  std::optional<ProcIo> io = ParseProcIo(
      "rchar: 5000\nwchar: 7000\nsyscr: 5\nsyscw: 3\nread_bytes: 4096\nwrite_bytes: 8192\n"
      "cancelled_write_bytes: 0\n");
  ASSERT_TRUE(io.has_value());
  EXPECT_EQ(io->read_bytes, 4096u);
  EXPECT_EQ(io->write_bytes, 8192u);
  EXPECT_FALSE(ParseProcIo("rchar: 1\nread_bytes: 2\n").has_value());
  EXPECT_FALSE(ParseProcIo("read_bytes: x\nwrite_bytes: 1\n").has_value());
}

// A shell and the two children it waits for, one of them in a session of its own: the tree has
// all three; a gone process has none.
TEST(ProcessTree, FindsEveryDescendant) {
  const pid_t root = fork();
  ASSERT_GE(root, 0);
  if (root == 0) {
    execl("/bin/sh", "sh", "-c", "sleep 30 & setsid sleep 30 & wait", nullptr);
    _exit(127);
  }
  std::vector<pid_t> tree;
  for (int i = 0; i < 100 && tree.size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    tree = ProcessTree(root);
  }
  EXPECT_EQ(tree.size(), 3u);
  EXPECT_NE(std::find(tree.begin(), tree.end(), root), tree.end());
  for (pid_t pid : tree) kill(pid, SIGKILL);
  int status = 0;
  waitpid(root, &status, 0);
  EXPECT_TRUE(ProcessTree(root).empty());
}

}  // namespace
}  // namespace gantry::proc
