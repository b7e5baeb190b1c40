// ASCII case folding and quoting for error messages, shared by every library.
//
// Case folding touches only the 26 ASCII letters; every other byte (digits, punctuation, bytes
// >= 0x80 of UTF-8 text) is left as it is, whatever the process locale. This is what Slurm's
// xstrcasecmp()/strcasecmp() do in the C locale, which Slurm commands run in.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_ASCII_H_
#define GANTRY_TEXT_ASCII_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::text {

// 'A'..'Z' to 'a'..'z'; any other byte unchanged.
char AsciiLower(char c);

// 'a'..'z' to 'A'..'Z'; any other byte unchanged.
char AsciiUpper(char c);

// The text with every ASCII letter lower-cased (AsciiLower on each byte).
std::string AsciiToLower(std::string_view text);

// The text with every ASCII letter upper-cased (AsciiUpper on each byte).
std::string AsciiToUpper(std::string_view text);

// True when `a` and `b` have the same length and are equal byte for byte after ASCII case
// folding ("Gpu" equals "gPU"; non-letters must match exactly).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// True when `prefix` is a case-insensitive prefix of `text` (as strncasecmp(text, prefix,
// strlen(prefix)) == 0). The empty prefix is a prefix of every text.
bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix);

// The text in double quotes for an error message, safe to print on a terminal:
//   - `"` and `\` are escaped with a backslash (`\"`, `\\`);
//   - control bytes (below 0x20) and DEL (0x7f) are written as `\xNN` (two lower-case hex digits),
//     so "a\nb" becomes "a\x0ab";
//   - bytes >= 0x80 are kept as they are, so UTF-8 text stays readable;
//   - when the text is longer than `max_shown` bytes, only its first `max_shown` bytes are
//     shown, followed by `...` inside the closing quote: Quote("abcdef", 3) is "abc...".
// The limit counts input bytes, not output characters, and may cut a UTF-8 sequence.
std::string Quote(std::string_view text, size_t max_shown = 64);

// '0'..'9'.
constexpr bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
// isspace() in the C locale: space, \t, \n, \v, \f, \r.
constexpr bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Splits at every `separator`, keeping empty pieces: Split("a,,b", ',') is {"a", "", "b"} and
// Split("", ',') is {""}. The views point into `text`.
std::vector<std::string_view> Split(std::string_view text, char separator);
// The pieces between separators without surrounding spaces and tabs, empty ones dropped:
// SplitList(" a, ,b", ',') is {"a", "b"} (lists of addresses, of sockets).
std::vector<std::string> SplitList(std::string_view text, char separator);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_ASCII_H_
