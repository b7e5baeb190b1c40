#include "sys/mountinfo.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gantry::sys {
namespace {

TEST(MountInfoTest, ReadsEachMountAndFindsWhatHoldsAPath) {
  const std::vector<Mount> mounts = ParseMountInfo(
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "40 22 0:50 / /home rw,relatime shared:20 - nfs4 filer:/export/home rw,vers=4.2\n"
      "41 22 0:51 / /srv/my\\040data rw - tmpfs tmpfs rw\n"
      "30 25 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "not a mount line\n");
  ASSERT_EQ(mounts.size(), 4u);
  EXPECT_EQ(mounts[2].mount_point, "/srv/my data");
  EXPECT_EQ(mounts[3].super_options, "rw,memory");
  EXPECT_EQ(MountOf(mounts, "/home/alice")->source, "filer:/export/home");
  EXPECT_EQ(MountOf(mounts, "/homework")->mount_point, "/");
  EXPECT_EQ(MountOf(mounts, "/home")->fs_type, "nfs4");
}

}  // namespace
}  // namespace gantry::sys
