#include "spec/machine_types.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gantry::spec {
namespace {

using ::testing::ElementsAre;

constexpr int64_t GB(int64_t gb) { return gb * 1024; }  // Compute Engine GB are GiB

struct GpuShape {
  std::string_view name;
  int64_t vcpus;
  int64_t memory_gb;
  int64_t gpus;
  std::string_view gres;
  std::string_view accelerator;
  bool arm;
};

// Compute Engine's accelerator-optimized machine table.
TEST(MachineTypesTest, GpuShapesMatchTheComputeEngineTable) {
  const GpuShape cases[] = {
      {"a4x-highgpu-4g", 140, 884, 4, "gb200", "NVIDIA_GB200", true},
      {"a4-highgpu-8g", 224, 3968, 8, "b200", "NVIDIA_B200", false},
      {"a3-ultragpu-8g", 224, 2952, 8, "h200", "NVIDIA_H200_141GB", false},
      {"a3-megagpu-8g", 208, 1872, 8, "h100", "NVIDIA_H100_MEGA_80GB", false},
      {"a3-highgpu-8g", 208, 1872, 8, "h100", "NVIDIA_H100_80GB", false},
  };
  for (const GpuShape& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    const MachineType* m = FindMachineType(c.name);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->name, c.name);
    EXPECT_EQ(m->vcpus, c.vcpus);
    EXPECT_EQ(m->memory_mib, GB(c.memory_gb));
    EXPECT_EQ(m->gpu_count, c.gpus);
    EXPECT_EQ(m->gpu_type, c.gres);
    EXPECT_EQ(m->accelerator, c.accelerator);
    EXPECT_EQ(m->arm, c.arm);
  }
}

TEST(MachineTypesTest, CpuShapesFollowTheirFamilyMemoryRatio) {
  struct Family {
    std::string_view prefix;
    int64_t gb_per_vcpu;
    std::vector<int64_t> sizes;
  };
  const Family families[] = {
      {"n2-standard-", 4, {2, 4, 8, 16, 32, 48, 64, 80, 96, 128}},
      {"n2-highmem-", 8, {2, 4, 8, 16, 32, 48, 64, 80, 96}},
      {"n2-highcpu-", 1, {2, 4, 8, 16, 32, 48, 64, 80, 96}},
      {"c2-standard-", 4, {4, 8, 16, 30, 60}},
      {"c3-standard-", 4, {4, 8, 22, 44, 88, 176}},
      {"c3-highmem-", 8, {4, 8, 22, 44, 88, 176}},
  };
  for (const Family& f : families) {
    for (int64_t n : f.sizes) {
      const std::string name = std::string(f.prefix) + std::to_string(n);
      SCOPED_TRACE(name);
      const MachineType* m = FindMachineType(name);
      ASSERT_NE(m, nullptr);
      EXPECT_EQ(m->vcpus, n);
      EXPECT_EQ(m->memory_mib, GB(n * f.gb_per_vcpu));
      EXPECT_EQ(m->gpu_count, 0);
      EXPECT_TRUE(m->gpu_type.empty());
      EXPECT_TRUE(m->accelerator.empty());
      EXPECT_FALSE(m->arm);
    }
  }
}

TEST(MachineTypesTest, N2Highmem128IsTheDocumentedExceptionTo8GbPerVcpu) {
  const MachineType* m = FindMachineType("n2-highmem-128");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->vcpus, 128);
  EXPECT_EQ(m->memory_mib, GB(864));
}

TEST(MachineTypesTest, UnknownAndMisspelledNamesAreNotFound) {
  for (std::string_view name : {"", "a4-highgpu-4g", "A4-HIGHGPU-8G", "n2-standard-3",
                                "n2-highcpu-128", "a4-highgpu-8g ", "c3-standard"}) {
    EXPECT_EQ(FindMachineType(name), nullptr) << name;
  }
}

TEST(MachineTypesTest, KnownMachineTypesListsEveryShapeOnceGpuShapesFirst) {
  const std::vector<std::string_view> names = KnownMachineTypes();
  const std::set<std::string_view> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  ASSERT_GE(names.size(), 5u);
  for (size_t i = 0; i < names.size(); ++i) {
    const MachineType* m = FindMachineType(names[i]);
    ASSERT_NE(m, nullptr) << names[i];
    EXPECT_EQ(m->gpu_count > 0, i < 5) << names[i];
  }
  EXPECT_EQ(names.size(), 5u + 10 + 10 + 9 + 5 + 6 + 6);
}

TEST(MachineTypesTest, AcceleratorEnumMapsToGresType) {
  EXPECT_EQ(GpuTypeForAccelerator("NVIDIA_H100_80GB"), "h100");
  EXPECT_EQ(GpuTypeForAccelerator("NVIDIA_H100_MEGA_80GB"), "h100");
  EXPECT_EQ(GpuTypeForAccelerator("NVIDIA_H200_141GB"), "h200");
  EXPECT_EQ(GpuTypeForAccelerator("NVIDIA_B200"), "b200");
  EXPECT_EQ(GpuTypeForAccelerator("NVIDIA_GB200"), "gb200");
  EXPECT_EQ(GpuTypeForAccelerator("NVIDIA_TESLA_T4"), "");
  EXPECT_EQ(GpuTypeForAccelerator("nvidia_b200"), "");
  EXPECT_EQ(GpuTypeForAccelerator(""), "");
  EXPECT_THAT(KnownAccelerators(), ElementsAre("NVIDIA_H100_80GB", "NVIDIA_H100_MEGA_80GB",
                                               "NVIDIA_H200_141GB", "NVIDIA_B200", "NVIDIA_GB200"));
}

TEST(MachineTypesTest, EveryGpuShapeAgreesWithItsAcceleratorMapping) {
  for (std::string_view name : KnownMachineTypes()) {
    const MachineType* m = FindMachineType(name);
    if (m->gpu_count == 0) continue;
    EXPECT_EQ(GpuTypeForAccelerator(m->accelerator), m->gpu_type) << name;
  }
}

}  // namespace
}  // namespace gantry::spec
