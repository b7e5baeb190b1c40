// Small pieces every Slurm command shares: the version line, getopt error reporting, connecting
// with Slurm's error texts, and strict number parsing.
#ifndef GANTRY_SLURM_COMMAND_UTIL_H_
#define GANTRY_SLURM_COMMAND_UTIL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "slurm/command_context.h"
#include "slurm/option_parser.h"

namespace gantry::slurm {

// What -V/--version prints (upstream Slurm's form, which scripts parse).
inline constexpr char kVersionLine[] = "slurm 22.05.8\n";

// Prints a getopt error and "Try \"<command> --help\" for more information".
void ReportUsageError(const CommandContext& ctx, std::string_view command,
                      const std::string& error);

// Dials the controller. On failure prints, to stderr, the reason when the configuration could
// not be read ("<command>: error: cannot read /etc/gantry/gantry.conf: ..."), then
// `failure_prefix` followed by Slurm's connect-failure text, and returns null.
std::unique_ptr<ControllerClient> ConnectOrReport(const CommandContext& ctx,
                                                  std::string_view command,
                                                  std::string_view failure_prefix);

// Slurm's keyword matching (scontrol, sacctmgr): `word` is a prefix of `keyword`, any case, at
// least `min` characters long (or all of a shorter keyword).
bool Keyword(std::string_view word, std::string_view keyword, size_t min);

// A decimal number without sign or junk ("12"); nullopt otherwise or on overflow.
std::optional<uint64_t> ParseUnsigned(std::string_view text);
// strtol-like as Slurm's parse_int uses it: optional sign, digits, nothing else.
std::optional<int64_t> ParseSigned(std::string_view text);
// A signal as Slurm's sig_name2num reads it: a number 1-64, or a name from its table with or
// without "SIG", any case ("USR1", "sigterm").
std::optional<int> ParseSignal(std::string_view text);

// A user name or number as a uid: the passwd name first, then a plain number.
std::optional<uint32_t> ResolveUser(const CommandContext& ctx, std::string_view user);

// "Wed Dec 02 11:46:47 2026\n": the date line of squeue -l and sinfo -l (ctime in tz).
std::string CtimeLine(UnixTime now, const TimeZone& tz);

// Comma-separated items, empty ones dropped (strtok semantics).
std::vector<std::string> SplitList(std::string_view text);

// `path` as the command means it: as given when empty or absolute, else under `cwd`.
std::string Absolute(const std::string& path, const std::string& cwd);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_COMMAND_UTIL_H_
