// Room set aside on a state dir's filesystem, so that the controller can start on a full disk.
//
// DIR/reserve is a 32 MiB file, allocated while the disk has room. A start that finds less free
// than the reserve's size plus the controller's own minimum (the free space below which it
// refuses new work) removes it: recovery's commits and `gantry up`'s pid files then have room.
// Thread-compatible; touches only DIR/reserve.
#ifndef GANTRY_SYS_DISK_RESERVE_H_
#define GANTRY_SYS_DISK_RESERVE_H_

#include <cstdint>
#include <string>

namespace gantry::sys {

inline constexpr uint64_t kDiskReserveBytes = uint64_t{32} << 20;
// The controller refuses new work below this much free space (ControllerConfig).
inline constexpr uint64_t kStoreMinFreeBytes = uint64_t{64} << 20;

// Makes or frees DIR/reserve as the header says. Returns a line for the log when it freed the
// reserve, else "".
std::string KeepDiskReserve(const std::string& dir, uint64_t min_free);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_DISK_RESERVE_H_
