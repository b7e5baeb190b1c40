// Whole-file reads and crash-safe writes.
// Thread-safety: thread-safe (no shared state).
#ifndef GANTRY_SYS_FILES_H_
#define GANTRY_SYS_FILES_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::sys {

// The file's bytes. NotFound naming the path and errno's text; FailedPrecondition for a folder.
Result<std::string> ReadText(const std::string& path);

// Whether a write must reach the disk before it returns (fsync), or need only outlive the
// process that made it (the page cache survives a crashed process, not a crashed machine).
enum class Durability { kDisk, kProcess };

// Writes `text` to `path` through `path`.tmp and rename (with fsync for kDisk), so a reader sees
// the old file or the new one, never part of one; the file gets exactly `mode` whatever the
// umask. Unavailable naming the path and errno's text.
Status WriteFileAtomically(const std::string& path, std::string_view text, mode_t mode,
                           Durability durability = Durability::kDisk);

// OK when the key file at `path` is readable by its owner only; PermissionDenied ("key file P is
// readable by group or others; it must be mode 0600") or InvalidArgument (cannot stat) otherwise.
Status CheckPrivateKeyFile(const std::string& path);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_FILES_H_
