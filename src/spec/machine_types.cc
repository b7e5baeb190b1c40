#include "spec/machine_types.h"

#include <array>

namespace gantry::spec {

namespace {

constexpr int64_t kMiBPerGB = 1024;  // Compute Engine "GB" are GiB

constexpr MachineType Gpu(std::string_view name, int64_t vcpus, int64_t memory_gb, int64_t gpus,
                          std::string_view gres, std::string_view accelerator, bool arm = false) {
  return MachineType{name, vcpus, memory_gb * kMiBPerGB, gpus, gres, accelerator, arm};
}

// A CPU shape whose memory is a fixed number of GB per vCPU, as its family defines.
constexpr MachineType Cpu(std::string_view name, int64_t vcpus, int64_t gb_per_vcpu) {
  return MachineType{name, vcpus, vcpus * gb_per_vcpu * kMiBPerGB, 0, {}, {}, false};
}

constexpr auto kMachineTypes = std::to_array<MachineType>({
    // Accelerator-optimized (GPU) shapes.
    Gpu("a4x-highgpu-4g", 140, 884, 4, "gb200", "NVIDIA_GB200", /*arm=*/true),
    Gpu("a4-highgpu-8g", 224, 3968, 8, "b200", "NVIDIA_B200"),
    Gpu("a3-ultragpu-8g", 224, 2952, 8, "h200", "NVIDIA_H200_141GB"),
    Gpu("a3-megagpu-8g", 208, 1872, 8, "h100", "NVIDIA_H100_MEGA_80GB"),
    Gpu("a3-highgpu-8g", 208, 1872, 8, "h100", "NVIDIA_H100_80GB"),
    // N2 general purpose: standard 4 GB, highmem 8 GB, highcpu 1 GB per vCPU.
    Cpu("n2-standard-2", 2, 4),
    Cpu("n2-standard-4", 4, 4),
    Cpu("n2-standard-8", 8, 4),
    Cpu("n2-standard-16", 16, 4),
    Cpu("n2-standard-32", 32, 4),
    Cpu("n2-standard-48", 48, 4),
    Cpu("n2-standard-64", 64, 4),
    Cpu("n2-standard-80", 80, 4),
    Cpu("n2-standard-96", 96, 4),
    Cpu("n2-standard-128", 128, 4),
    Cpu("n2-highmem-2", 2, 8),
    Cpu("n2-highmem-4", 4, 8),
    Cpu("n2-highmem-8", 8, 8),
    Cpu("n2-highmem-16", 16, 8),
    Cpu("n2-highmem-32", 32, 8),
    Cpu("n2-highmem-48", 48, 8),
    Cpu("n2-highmem-64", 64, 8),
    Cpu("n2-highmem-80", 80, 8),
    Cpu("n2-highmem-96", 96, 8),
    // The one N2 shape off its family's ratio: 864 GB, not 128 x 8.
    MachineType{"n2-highmem-128", 128, 864 * kMiBPerGB, 0, {}, {}, false},
    Cpu("n2-highcpu-2", 2, 1),
    Cpu("n2-highcpu-4", 4, 1),
    Cpu("n2-highcpu-8", 8, 1),
    Cpu("n2-highcpu-16", 16, 1),
    Cpu("n2-highcpu-32", 32, 1),
    Cpu("n2-highcpu-48", 48, 1),
    Cpu("n2-highcpu-64", 64, 1),
    Cpu("n2-highcpu-80", 80, 1),
    Cpu("n2-highcpu-96", 96, 1),
    // C2 compute optimized: 4 GB per vCPU.
    Cpu("c2-standard-4", 4, 4),
    Cpu("c2-standard-8", 8, 4),
    Cpu("c2-standard-16", 16, 4),
    Cpu("c2-standard-30", 30, 4),
    Cpu("c2-standard-60", 60, 4),
    // C3 general purpose: standard 4 GB, highmem 8 GB per vCPU.
    Cpu("c3-standard-4", 4, 4),
    Cpu("c3-standard-8", 8, 4),
    Cpu("c3-standard-22", 22, 4),
    Cpu("c3-standard-44", 44, 4),
    Cpu("c3-standard-88", 88, 4),
    Cpu("c3-standard-176", 176, 4),
    Cpu("c3-highmem-4", 4, 8),
    Cpu("c3-highmem-8", 8, 8),
    Cpu("c3-highmem-22", 22, 8),
    Cpu("c3-highmem-44", 44, 8),
    Cpu("c3-highmem-88", 88, 8),
    Cpu("c3-highmem-176", 176, 8),
});

struct AcceleratorGres {
  std::string_view accelerator;
  std::string_view gres;
};

constexpr auto kAccelerators = std::to_array<AcceleratorGres>({
    {"NVIDIA_H100_80GB", "h100"},
    {"NVIDIA_H100_MEGA_80GB", "h100"},
    {"NVIDIA_H200_141GB", "h200"},
    {"NVIDIA_B200", "b200"},
    {"NVIDIA_GB200", "gb200"},
});

}  // namespace

const MachineType* FindMachineType(std::string_view name) {
  for (const MachineType& m : kMachineTypes) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::vector<std::string_view> KnownMachineTypes() {
  std::vector<std::string_view> names;
  names.reserve(kMachineTypes.size());
  for (const MachineType& m : kMachineTypes) names.push_back(m.name);
  return names;
}

std::string GpuTypeForAccelerator(std::string_view accelerator_type) {
  for (const AcceleratorGres& a : kAccelerators) {
    if (a.accelerator == accelerator_type) return std::string(a.gres);
  }
  return "";
}

std::vector<std::string> KnownAccelerators() {
  std::vector<std::string> names;
  names.reserve(kAccelerators.size());
  for (const AcceleratorGres& a : kAccelerators) names.emplace_back(a.accelerator);
  return names;
}

}  // namespace gantry::spec
