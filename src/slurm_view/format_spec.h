// The "%[.][width]X[suffix]" output formats of squeue -o and sinfo -o, parsed and padded the way
// Slurm 22.05 does it (src/squeue/opts.c parse_format, src/sinfo/opts.c, print.c _print_str):
//  * text before the first '%' is a prefix printed at the start of every line;
//  * the rest is split at every '%' (empty pieces vanish, so "%%" prints nothing, as in Slurm);
//    each piece is '.' (right-justify), a decimal width, the field letter, then a literal suffix
//    printed after the field;
//  * '#' as the width (sinfo's "%#P", "%#N") means "as wide as the longest value, at least 9";
//  * a letter the command does not know is an error message ("Invalid job format
//    specification: Z") and prints the piece literally ("%Z" plus suffix) in every line.
// Padding (_print_str): no width prints the value as is; left-justified values are cut to the
// width then padded with spaces; right-justified values are padded on the left and cut to the
// width only when the field cuts (most fields do; times and node lists do not).
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_VIEW_FORMAT_SPEC_H_
#define GANTRY_SLURM_VIEW_FORMAT_SPEC_H_

#include <string>
#include <string_view>
#include <vector>

namespace gantry::slurm {

struct FieldSpec {
  char letter = 0;
  int width = 0;            // 0: no width
  bool right = false;       // '.' given
  bool auto_width = false;  // '#' given (sinfo)
  std::string suffix;       // literal text after the letter
};

struct FormatSpec {
  std::string prefix;
  std::vector<FieldSpec> fields;
};

// Splits a format. Never fails: unknown letters are the caller's business.
FormatSpec ParseFormatSpec(std::string_view format);

// One value printed the way _print_str does.
std::string PadField(std::string_view value, int width, bool right, bool cut);

// squeue's "%all": every letter a-z then A-Z, separated by '|'.
std::string AllFieldsFormat();

// -O/--Format "name[:[.]size][suffix],...": the long-name form; each entry has width 20 when no
// size is given (Slurm's default).
struct LongFieldSpec {
  std::string name;
  int width = 20;
  bool right = false;
  std::string suffix;
};
std::vector<LongFieldSpec> ParseLongFormatSpec(std::string_view format);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_FORMAT_SPEC_H_
