// Command-line parsing exactly as GNU getopt_long() does it for the Slurm commands, so that every
// command accepts the same spellings and prints the same errors as Slurm 22.05 on Debian 12
// (glibc 2.36):
//  * long options may be abbreviated to any unambiguous prefix; an exact name always wins; a
//    prefix shared by options that differ (argument kind or meaning) is ambiguous and every
//    candidate that differs from the first is listed;
//  * "--name=value" or "--name value" for required arguments, only "--name=value" for optional
//    ones; "-xVALUE" or "-x VALUE" for required short arguments, only "-xVALUE" for optional;
//    short options cluster ("-hl");
//  * "--" ends the options; "-" alone is an operand;
//  * permute mode (squeue, sinfo, scancel) collects operands from anywhere; in-order mode
//    (sbatch, scontrol) stops at the first operand, the rest being operands.
// Errors are glibc's texts, prefixed with the program name as the user typed it:
//   "sbatch: unrecognized option '--foo'", "sbatch: invalid option -- 'Z'",
//   "sbatch: option requires an argument -- 't'", "sbatch: option '--time' requires an argument",
//   "sbatch: option '--hold' doesn't allow an argument",
//   "sbatch: option '--ti=5' is ambiguous; possibilities: '--time' '--time-min'".
// The caller adds the command's own follow-up line ("Try \"sbatch --help\" ...").
//
// Option tables are plain arrays, in the order the Slurm command declares them (the order of the
// "possibilities" list depends on it). Pure functions; thread-safe.
#ifndef GANTRY_SLURM_OPTION_PARSER_H_
#define GANTRY_SLURM_OPTION_PARSER_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::slurm {

enum class ArgKind { kNone, kRequired, kOptional };

// One long option. `id` is what the parser reports (often the short letter); options with the
// same kind and id are aliases and never ambiguous with each other.
struct LongOption {
  std::string_view name;  // without "--"
  ArgKind arg;
  int id;
};

// One short option letter and its argument kind.
struct ShortOption {
  char letter;
  ArgKind arg;
};

struct ParsedOption {
  int id = 0;
  std::optional<std::string> value;
  std::string spelling;  // as typed: "-t", "--time", "--ti"
};

struct ParsedArgs {
  std::vector<ParsedOption> options;  // in command-line order
  std::vector<std::string> operands;  // non-options (and everything after "--")
  // The first error, as glibc prints it (no trailing newline); empty when none. Options before
  // the error are kept in `options`.
  std::string error;
};

enum class ArgOrder {
  kPermute,       // GNU default: operands may appear anywhere
  kRequireOrder,  // "+" in the optstring: stop at the first operand
};

// Parses `args` (without the program name). `program` is used in error messages.
ParsedArgs ParseArgs(std::string_view program, const std::vector<std::string>& args,
                     std::span<const ShortOption> short_options,
                     std::span<const LongOption> long_options, ArgOrder order);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_OPTION_PARSER_H_
