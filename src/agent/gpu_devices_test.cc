#include "agent/gpu_devices.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "agent/cgroup.h"
#include "agent/launcher.h"
#include "agent/script_runner.h"
#include "agent/test_support.h"
#include "sys/child_process.h"
#include "sys/nvidia_devices.h"

namespace gantry::agent {
namespace {

using testing::ReadFile;
using testing::TempDir;

// Fake NVIDIA devices nvidia0 and nvidia1 (character devices 195:0 and 195:1, no driver
// behind them) in `dev`; false when this process may not make them (not root).
bool MakeFakeGpus(const TempDir& dev) {
  return geteuid() == 0 && mknod((dev / "nvidia0").c_str(), S_IFCHR | 0666, makedev(195, 0)) == 0 &&
         mknod((dev / "nvidia1").c_str(), S_IFCHR | 0666, makedev(195, 1)) == 0;
}

// What `cat`ting both from a process spawned with `spec`'s cgroups prints: without a fence
// "No such device" twice (the driver is missing), with one "Operation not permitted".
std::string OpenBoth(const TempDir& dev, SpawnSpec spec) {
  TempDir out;
  spec.path = "/bin/sh";
  spec.argv = {"/bin/sh", "-c",
               "exec 2>&1; cat " + (dev / "nvidia0") + "; cat " + (dev / "nvidia1") + "; true"};
  spec.env = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
  spec.stdout_path = out / "out.txt";
  Result<Spawned> spawned = Spawn(spec);
  if (!spawned.ok()) return spawned.status().message();
  sys::ReapChild(spawned->pid);
  return ReadFile(out / "out.txt");
}

TEST(ParseCgroup1Mount, FindsTheV1DevicesController) {
  const std::string mountinfo =
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(ParseCgroup1Mount(mountinfo, "devices"), "/sys/fs/cgroup/devices");
  EXPECT_EQ(ParseCgroup1Mount("41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "devices"),
            std::nullopt);
}

// Fake NVIDIA devices (character devices 195:0 and 195:1; no driver behind them): a job fenced
// to GPU 0 is refused GPU 1 by the kernel (EPERM), while GPU 0 only lacks its driver.
TEST(GpuFence, AJobMayOpenOnlyItsOwnGpus) {
  TempDir dev;
  if (!MakeFakeGpus(dev)) GTEST_SKIP() << "needs root to make device files";
  std::ofstream(dev / "nvidiactl") << "not a device";
  EXPECT_EQ(sys::FindNvidiaGpus(dev.path()), (std::vector<uint32_t>{0, 1}));
  Result<GpuFence> fence = GpuFence::Open("gpu-devices-test", sys::FindNvidiaGpus(dev.path()));
  if (!fence.ok()) GTEST_SKIP() << "no devices cgroup here: " << fence.status().message();
  Result<std::string> dir = fence->CreateJob(424242, {0});
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  SpawnSpec spec;
  spec.extra_cgroups = {*dir};
  const std::string text = OpenBoth(dev, spec);
  EXPECT_NE(text.find("nvidia0: No such device"), std::string::npos) << text;
  EXPECT_NE(text.find("nvidia1: Operation not permitted"), std::string::npos) << text;
  fence->RemoveJob(424242);
  rmdir(fence->base().c_str());
}

// The cgroup v2 way: an eBPF device program on the job's cgroup refuses the other GPUs.
TEST(AttachGpuFilter, RefusesTheDeniedGpusInACgroupV2) {
  TempDir dev;
  if (!MakeFakeGpus(dev)) GTEST_SKIP() << "needs root to make device files";
  const std::optional<std::string> root = FindCgroup2Mount();
  if (!root) GTEST_SKIP() << "no cgroup v2 hierarchy";
  Result<CgroupTree> tree = CgroupTree::Open(*root, "gpu-bpf-test");
  if (!tree.ok()) GTEST_SKIP() << tree.status().message();
  Result<std::string> dir = tree->CreateJob(7);
  ASSERT_TRUE(dir.ok());
  if (Status attached = AttachGpuFilter(*dir, {1}); !attached.ok()) {
    (void)RemoveCgroup(*dir);
    GTEST_SKIP() << "no eBPF device programs here: " << attached.message();
  }
  SpawnSpec spec;
  spec.cgroup = *dir;
  const std::string text = OpenBoth(dev, spec);
  EXPECT_NE(text.find("nvidia0: No such device"), std::string::npos) << text;
  EXPECT_NE(text.find("nvidia1: Operation not permitted"), std::string::npos) << text;
  (void)RemoveCgroup(*dir);
  (void)RemoveCgroup(tree->base());
}

}  // namespace
}  // namespace gantry::agent
