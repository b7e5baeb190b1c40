#include "agent/gpu_devices.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "agent/cgroup.h"
#include "sys/mountinfo.h"
#include "sys/nvidia_devices.h"

namespace gantry::agent {
namespace {

using sys::kNvidiaMajor;

Status MakeFenceDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return Status::Ok();
  return Unavailable("mkdir(" + path + "): " + strerror(errno));
}

}  // namespace

Result<GpuFence> GpuFence::Open(const std::string& name, std::vector<uint32_t> gpus,
                                const std::string& mount) {
  std::string root = mount;
  if (root.empty()) {
    std::optional<std::string> found = ParseCgroup1Mount(sys::ReadMountInfo(), "devices");
    if (!found) return Unavailable("no cgroup v1 devices controller is mounted");
    root = *found;
  }
  const std::string slice = root + "/gantry.slice";
  GANTRY_RETURN_IF_ERROR(MakeFenceDir(slice));
  const std::string base = slice + "/" + name;
  GANTRY_RETURN_IF_ERROR(MakeFenceDir(base));
  if (access((base + "/devices.deny").c_str(), W_OK) != 0) {
    return Unavailable(base + "/devices.deny: " + strerror(errno));
  }
  return GpuFence(base, std::move(gpus));
}

std::string GpuFence::JobPath(uint32_t job_id) const {
  return base_ + "/job_" + std::to_string(job_id);
}

Result<std::string> GpuFence::CreateJob(uint32_t job_id,
                                        const std::vector<uint32_t>& allowed) const {
  const std::string path = JobPath(job_id);
  GANTRY_RETURN_IF_ERROR(MakeFenceDir(path));
  for (uint32_t gpu : gpus_) {
    if (std::find(allowed.begin(), allowed.end(), gpu) != allowed.end()) continue;
    std::ofstream deny(path + "/devices.deny");
    deny << "c " << kNvidiaMajor << ":" << gpu << " rwm\n";
    deny.flush();
    if (!deny) return Unavailable(path + "/devices.deny: cannot deny GPU " + std::to_string(gpu));
  }
  return path;
}

void GpuFence::RemoveJob(uint32_t job_id) const { rmdir(JobPath(job_id).c_str()); }

namespace {

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn insn{};
  insn.code = code;
  insn.dst_reg = dst & 0xf;
  insn.src_reg = src & 0xf;
  insn.off = off;
  insn.imm = imm;
  return insn;
}

// The device program: 1 (allow) unless the device is a character device 195:<denied minor>.
// r1 = struct bpf_cgroup_dev_ctx {access_type (type in the low 16 bits), major, minor}.
std::vector<bpf_insn> DeviceProgram(const std::vector<uint32_t>& denied) {
  std::vector<bpf_insn> p;
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0));  // r2 = access_type
  p.push_back(Insn(BPF_ALU | BPF_AND | BPF_K, 2, 0, 0, 0xffff));
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, 3, 1, 4, 0));  // r3 = major
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, 4, 1, 8, 0));  // r4 = minor
  // Jump offsets count from the next instruction; "allow" is the second-to-last pair.
  const auto checks = static_cast<int16_t>(denied.size());
  p.push_back(
      Insn(BPF_JMP | BPF_JNE | BPF_K, 2, 0, static_cast<int16_t>(1 + checks), BPF_DEVCG_DEV_CHAR));
  p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, 3, 0, checks, kNvidiaMajor));
  for (int16_t k = 0; k < checks; ++k) {  // to "deny", after "allow"
    p.push_back(Insn(BPF_JMP | BPF_JEQ | BPF_K, 4, 0, static_cast<int16_t>(checks - k - 1 + 2),
                     static_cast<int32_t>(denied[k])));
  }
  p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1));  // allow
  p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0));  // deny
  p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  return p;
}

}  // namespace

Status AttachGpuFilter(const std::string& cgroup_dir, const std::vector<uint32_t>& denied) {
  if (denied.empty()) return Status::Ok();
  const std::vector<bpf_insn> program = DeviceProgram(denied);
  static const char kLicense[] = "GPL";
  bpf_attr load{};
  load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  load.insns = reinterpret_cast<uint64_t>(program.data());
  load.insn_cnt = static_cast<uint32_t>(program.size());
  load.license = reinterpret_cast<uint64_t>(kLicense);
  const int prog = static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof(load)));
  if (prog < 0) return Unavailable(std::string("bpf(BPF_PROG_LOAD): ") + strerror(errno));
  const int dir = open(cgroup_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    const int err = errno;
    close(prog);
    return Unavailable("open(" + cgroup_dir + "): " + strerror(err));
  }
  bpf_attr attach{};
  attach.target_fd = static_cast<uint32_t>(dir);
  attach.attach_bpf_fd = static_cast<uint32_t>(prog);
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_MULTI;
  const auto rc = syscall(SYS_bpf, BPF_PROG_ATTACH, &attach, sizeof(attach));
  const int err = errno;
  close(dir);
  close(prog);  // the attachment keeps the program
  if (rc != 0) return Unavailable(std::string("bpf(BPF_PROG_ATTACH): ") + strerror(err));
  return Status::Ok();
}

}  // namespace gantry::agent
