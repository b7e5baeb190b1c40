// The Google Cloud machine types a cluster spec may name, with the hardware Slurm needs to know
// (CPUs, memory, GPUs and their GRES type), and the Vertex accelerator_type enum.
//
// Memory: Compute Engine documents memory in "GB" that are binary gigabytes (GiB); the catalog
// stores MiB = GB * 1024 (a4-highgpu-8g: 3968 GB -> 4063232 MiB). This is the machine's memory,
// not what Slurm may give to jobs (the spec derives RealMemory from it).
//
// Sources: Compute Engine "Accelerator-optimized machine family" (A4X, A4, A3 Ultra/Mega/High)
// and the general-purpose / compute-optimized pages (N2, C2, C3).
// Pure data; thread-safe.
#ifndef GANTRY_SPEC_MACHINE_TYPES_H_
#define GANTRY_SPEC_MACHINE_TYPES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::spec {

struct MachineType {
  std::string_view name;         // "a4-highgpu-8g"
  int64_t vcpus = 0;             // vCPUs (hardware threads)
  int64_t memory_mib = 0;        // machine memory in MiB
  int64_t gpu_count = 0;         // 0 for CPU-only shapes
  std::string_view gpu_type;     // Slurm GRES type ("b200"), empty without GPUs
  std::string_view accelerator;  // Vertex accelerator_type ("NVIDIA_B200"), empty without GPUs
  bool arm = false;              // Arm host CPU (A4X: NVIDIA Grace)
};

// The catalog entry for `name` (exact, lower-case as Compute Engine spells it), or nullptr.
const MachineType* FindMachineType(std::string_view name);

// Every catalog name, GPU shapes first then CPU shapes, for error hints.
std::vector<std::string_view> KnownMachineTypes();

// The Slurm GRES type for a Vertex accelerator_type ("NVIDIA_H200_141GB" -> "h200"), or "" for
// an unknown enum value. H100 and H100 Mega are both "h100" (the same GPU to Slurm).
std::string GpuTypeForAccelerator(std::string_view accelerator_type);

// Every accelerator_type value the catalog knows, in enum order, for error hints.
std::vector<std::string> KnownAccelerators();

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_MACHINE_TYPES_H_
