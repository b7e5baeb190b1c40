#include "sys/nvidia_devices.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <string_view>

namespace gantry::sys {

std::vector<uint32_t> FindNvidiaGpus(const std::string& dev_dir) {
  std::vector<uint32_t> minors;
  DIR* dir = opendir(dev_dir.c_str());
  if (dir == nullptr) return minors;
  while (dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.size() <= 6 || name.substr(0, 6) != "nvidia" ||
        !std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    struct stat st {};
    const std::string path = dev_dir + "/" + std::string(name);
    if (stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == kNvidiaMajor) {
      minors.push_back(minor(st.st_rdev));
    }
  }
  closedir(dir);
  std::sort(minors.begin(), minors.end());
  return minors;
}

}  // namespace gantry::sys
