#include "health/checks.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gantry::health {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/gantry-health-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void Write(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

TEST(HealthChecksTest, FullMeansUnderOnePercentOrAHundredMiB) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  EXPECT_FALSE(IsFull(16 * kMiB, 16 * kMiB, 10, 10));       // an empty small tmpfs
  EXPECT_TRUE(IsFull(0, 16 * kMiB, 10, 10));                // filled
  EXPECT_TRUE(IsFull(100 * 1024, 16 * kMiB, 10, 10));       // under 1 %
  EXPECT_FALSE(IsFull(200 * kMiB, 500000 * kMiB, 10, 10));  // a big disk: 100 MiB floor
  EXPECT_TRUE(IsFull(50 * kMiB, 500000 * kMiB, 10, 10));
  EXPECT_TRUE(IsFull(16 * kMiB, 16 * kMiB, 0, 10));  // no inode left
  EXPECT_EQ(Bytes(512), "512 B");
  EXPECT_EQ(Bytes(16 * kMiB), "16.0 MiB");
}

TEST(HealthChecksTest, ReadsMeminfoAndTheProgramsFirstLine) {
  const std::optional<MemInfo> mem =
      ParseMeminfo("MemTotal:       16323412 kB\nMemFree:  1 kB\nMemAvailable:   8000000 kB\n");
  ASSERT_TRUE(mem);
  EXPECT_EQ(mem->total_kib, 16323412u);
  EXPECT_EQ(mem->available_kib, 8000000u);
  EXPECT_FALSE(ParseMeminfo("MemTotal: 1 kB\n"));

  EXPECT_EQ(FirstLine("\n  \n  NHC: eth0 down  \nmore\n"), "NHC: eth0 down");
}

TEST(HealthChecksTest, GpusMustAllBeThere) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir dev;
  for (int i = 0; i < 4; ++i) {
    const std::string path = dev.path() + "/nvidia" + std::to_string(i);
    ASSERT_EQ(mknod(path.c_str(), S_IFCHR | 0600, makedev(195, i)), 0);
  }
  HealthHost host;
  host.dev_dir = dev.path();
  host.tool_path = "";
  EXPECT_EQ(CheckGpus(host, 4).message(), "4 of 4 GPUs present");
  EXPECT_TRUE(CheckGpus(host, 4).ok());
  unlink((dev.path() + "/nvidia2").c_str());
  const v1::HealthCheck gone = CheckGpus(host, 4);
  EXPECT_FALSE(gone.ok());
  EXPECT_EQ(gone.message(), "3 of 4 GPUs present (nvidia2 missing in " + dev.path() + ")");

  // Emulated (a local cluster): it watches what it found at its first run.
  HealthHost local = host;
  local.emulated = true;
  EXPECT_TRUE(CheckGpus(local, 8).ok());  // 3 devices for a node declaring 8: fine
  unlink((dev.path() + "/nvidia0").c_str());
  EXPECT_EQ(CheckGpus(local, 8).message(),
            "2 of 3 GPUs present (nvidia0 missing in " + dev.path() + ")");
}

TEST(HealthChecksTest, EmulatedGpusWithNoDeviceAreNotChecked) {
  TempDir dev;
  HealthHost host;
  host.dev_dir = dev.path();
  host.emulated = true;
  const v1::HealthCheck check = CheckGpus(host, 8);
  EXPECT_TRUE(check.ok());
  EXPECT_THAT(check.message(), StartsWith("8 GPUs declared, emulated"));
  host.emulated = false;
  host.gpu_baseline.reset();
  EXPECT_EQ(CheckGpus(host, 2).message(),
            "0 of 2 GPUs present (nvidia0, nvidia1 missing in " + dev.path() + ")");
}

TEST(HealthChecksTest, NvidiaSmiMustListThemAll) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir dev, tools;
  for (int i = 0; i < 2; ++i) {
    const std::string path = dev.path() + "/nvidia" + std::to_string(i);
    ASSERT_EQ(mknod(path.c_str(), S_IFCHR | 0600, makedev(195, i)), 0);
  }
  Write(tools.path() + "/nvidia-smi", "#!/bin/sh\necho 'GPU 0: NVIDIA B200 (UUID: GPU-1)'\n", 0755);
  HealthHost host;
  host.dev_dir = dev.path();
  host.tool_path = tools.path();
  EXPECT_EQ(CheckGpus(host, 2).message(), "nvidia-smi lists 1 of 2 GPUs");
  Write(tools.path() + "/nvidia-smi",
        "#!/bin/sh\necho 'Unable to determine the device handle for GPU0000:1B:00.0: Unknown "
        "Error'\nexit 15\n",
        0755);
  EXPECT_EQ(CheckGpus(host, 2).message(),
            "nvidia-smi -L: exit status 15 (a GPU has fallen off the bus): Unable to determine "
            "the device handle for GPU0000:1B:00.0: Unknown Error");
}

TEST(HealthChecksTest, DiskNamesTheFullOne) {
  TempDir spool;
  HealthHost host;
  host.spool = spool.path();
  const v1::HealthCheck ok = CheckDisk(host, "/tmp");
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_THAT(ok.message(), HasSubstr("spool "));
  const v1::HealthCheck missing = CheckDisk(host, "/no/such/tmp");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "TmpFS /no/such/tmp: No such file or directory");
}

TEST(HealthChecksTest, MemoryBelowTheDeclaredIsSlurmsLowRealMemory) {
  TempDir dir;
  HealthHost host;
  host.meminfo = dir.path() + "/meminfo";
  Write(host.meminfo, "MemTotal: 16777216 kB\nMemAvailable: 8388608 kB\n");
  EXPECT_EQ(CheckMemory(host, 16000).message(), "8.0 GiB available of 16.0 GiB");
  EXPECT_EQ(CheckMemory(host, 32000).message(),
            "Low RealMemory (reported:16384 < 100.00% of configured:32000)");
  host.emulated = true;  // a local cluster's nodes declare what the host may not have
  EXPECT_TRUE(CheckMemory(host, 32000).ok());
  Write(host.meminfo, "MemTotal: 16777216 kB\nMemAvailable: 20480 kB\n");
  EXPECT_EQ(CheckMemory(host, 1000).message(), "only 20.0 MiB available of 16.0 GiB");
}

TEST(HealthChecksTest, HomeMustBeTheDeclaredStorageAndWritable) {
  TempDir dir;
  HealthHost host;
  host.node = "n1";
  host.home = dir.path() + "/home";
  host.mountinfo = dir.path() + "/mountinfo";
  EXPECT_EQ(CheckHome(host, "/home").message(), host.home + ": No such file or directory");
  mkdir(host.home.c_str(), 0755);
  EXPECT_EQ(CheckHome(host, "/home").message(), host.home + ", writable");
  // Nothing left behind by the probe.
  EXPECT_TRUE(std::filesystem::is_empty(host.home));
  Write(host.mountinfo, "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
  EXPECT_EQ(CheckHome(host, "filer:/export/home").message(),
            host.home +
                " is not an NFS mount (ext4 /dev/sda1 on /); home_directory_storage is "
                "filer:/export/home");
  Write(host.mountinfo, "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n40 22 0:50 / " + host.home +
                            " rw - nfs4 other:/export/home rw\n");
  EXPECT_EQ(CheckHome(host, "filer:/export/home").message(),
            host.home + " is other:/export/home, not filer:/export/home as declared");
  // A Filestore instance: any NFS mount will do (its address is the service's).
  EXPECT_EQ(CheckHome(host, "projects/p/locations/l/instances/home").message(),
            host.home + " is other:/export/home, writable");
  // A local cluster's folder stands in for the declared storage.
  host.emulated = true;
  EXPECT_EQ(CheckHome(host, "filer:/export/home").message(),
            host.home + " (standing in for filer:/export/home), writable");
  if (geteuid() != 0) {
    chmod(host.home.c_str(), 0555);
    EXPECT_THAT(CheckHome(host, "/home").message(), HasSubstr("is not writable"));
  }
}

TEST(HealthChecksTest, TheProgramsFirstLineIsTheReason) {
  TempDir dir;
  HealthHost host;
  host.node = "gpu-7";
  const std::string program = dir.path() + "/check.sh";
  Write(program, "#!/bin/sh\necho \"$SLURMD_NODENAME fine\"\n", 0755);
  EXPECT_EQ(CheckProgram(host, program).message(), "gpu-7 fine");
  EXPECT_TRUE(CheckProgram(host, program).ok());
  Write(program, "#!/bin/sh\necho 'NHC: ib0 is down' >&2\necho second\nexit 1\n", 0755);
  const v1::HealthCheck failed = CheckProgram(host, program);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "NHC: ib0 is down");
  Write(program, "#!/bin/sh\nexit 3\n", 0755);
  EXPECT_EQ(CheckProgram(host, program).message(),
            "HealthCheckProgram " + program + ": exit status 3");
  Write(program, "#!/bin/sh\nsleep 30 &\nsleep 30\n", 0755);
  host.program_timeout = std::chrono::milliseconds(300);
  EXPECT_EQ(CheckProgram(host, program).message(),
            "HealthCheckProgram " + program + ": killed after 300 ms");
  EXPECT_EQ(CheckProgram(host, dir.path() + "/none").message(),
            "HealthCheckProgram " + dir.path() + "/none: No such file or directory");
}

TEST(HealthChecksTest, ARunHasTheChecksTheSettingsAskFor) {
  TempDir dir;
  HealthHost host;
  host.spool = dir.path();
  host.home = dir.path();
  host.dev_dir = dir.path();
  host.emulated = true;
  v1::HealthSettings settings;
  EXPECT_EQ(RunHealthChecks(host, settings).checks_size(), 2);  // disk, memory
  settings.set_gpus(8);
  settings.set_home_storage("/home");
  settings.set_program("/bin/true");
  const v1::HealthReport report = RunHealthChecks(host, settings);
  std::string names;
  for (const auto& c : report.checks()) names += c.name() + (c.ok() ? "+ " : "- ");
  EXPECT_EQ(names, "gpu+ disk+ memory+ home+ program+ ");
}

}  // namespace
}  // namespace gantry::health
