#include "text/ascii.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace gantry::text {
namespace {

using namespace std::literals;

TEST(AsciiCaseTest, FoldsOnlyTheAsciiLetters) {
  struct Case {
    char in;
    char lower;
    char upper;
  };
  const Case cases[] = {
      {'A', 'a', 'A'},           // upper-case letters
      {'Z', 'z', 'Z'},           //
      {'a', 'a', 'A'},           // lower-case letters
      {'z', 'z', 'Z'},           //
      {'m', 'm', 'M'},           //
      {'0', '0', '0'},           // digits and punctuation are kept
      {'_', '_', '_'},           //
      {'@', '@', '@'},           // just before 'A'
      {'[', '[', '['},           // just after 'Z'
      {'`', '`', '`'},           // just before 'a'
      {'{', '{', '{'},           // just after 'z'
      {'\0', '\0', '\0'},        // control bytes are kept
      {'\x7f', '\x7f', '\x7f'},  //
      {'\xc3', '\xc3', '\xc3'},  // a UTF-8 lead byte
      {'\xe9', '\xe9', '\xe9'},  // Latin-1 e-acute: not a letter here
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(1, c.in));
    EXPECT_EQ(AsciiLower(c.in), c.lower);
    EXPECT_EQ(AsciiUpper(c.in), c.upper);
  }
}

TEST(AsciiCaseTest, ConvertsWholeStrings) {
  struct Case {
    std::string_view in;
    std::string lower;
    std::string upper;
  };
  const Case cases[] = {
      {"", "", ""},
      {"ClusterName", "clustername", "CLUSTERNAME"},
      {"gres/GPU:a100", "gres/gpu:a100", "GRES/GPU:A100"},
      {"NOT_RESPONDING", "not_responding", "NOT_RESPONDING"},
      {"Ünïcode", "Ünïcode", "ÜNïCODE"},  // UTF-8 bytes are left alone
      {"a\0B"sv, "a\0b"s, "A\0B"s},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.in));
    EXPECT_EQ(AsciiToLower(c.in), c.lower);
    EXPECT_EQ(AsciiToUpper(c.in), c.upper);
  }
}

TEST(EqualsIgnoreCaseTest, ComparesAfterAsciiFolding) {
  struct Case {
    std::string_view a;
    std::string_view b;
    bool equal;
  };
  const Case cases[] = {
      {"", "", true},
      {"UNLIMITED", "unlimited", true},
      {"Infinite", "iNFINITE", true},
      {"no_consume", "NO_CONSUME", true},
      {"fs/disk", "FS/Disk", true},
      {"idle", "idles", false},  // lengths differ
      {"idle", "", false},
      {"a_b", "a-b", false},  // punctuation must match exactly
      {"@", "`", false},      // neighbours of the letter ranges are not letters
      {"[", "{", false},
      {"\xc3\xa9", "\xc3\x89", false},  // é and É: non-ASCII is not folded
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + std::string(c.b));
    EXPECT_EQ(EqualsIgnoreCase(c.a, c.b), c.equal);
    EXPECT_EQ(EqualsIgnoreCase(c.b, c.a), c.equal);
  }
}

TEST(StartsWithIgnoreCaseTest, MatchesCaseInsensitivePrefixes) {
  struct Case {
    std::string_view text;
    std::string_view prefix;
    bool starts;
  };
  const Case cases[] = {
      {"DRAIN", "dr", true},     // scontrol accepts abbreviated state words
      {"DRAIN", "DRAIN", true},  // the whole word
      {"DRAIN", "", true},       // the empty prefix
      {"", "", true},           {"DRAIN", "drained", false},  // longer than the text
      {"DRAIN", "rai", false},                                // not at the start
      {"", "d", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.text) + " / " + std::string(c.prefix));
    EXPECT_EQ(StartsWithIgnoreCase(c.text, c.prefix), c.starts);
  }
}

TEST(QuoteTest, EscapesQuotesBackslashesAndControlBytes) {
  struct Case {
    std::string_view in;
    std::string quoted;
  };
  const Case cases[] = {
      {"", R"("")"},
      {"n[1-4]", R"("n[1-4]")"},
      {"say \"hi\"", R"("say \"hi\"")"},
      {R"(C:\dir)", R"("C:\\dir")"},
      {"a\nb", R"("a\x0ab")"},
      {"tab\there", R"("tab\x09here")"},
      {"\r", R"("\x0d")"},
      {"noon\0x"sv, R"("noon\x00x")"},
      {"\x1f", R"("\x1f")"},
      {"del\x7f", R"("del\x7f")"},
      {" ~", R"(" ~")"},                   // the printable range ends are kept
      {"caf\xc3\xa9", "\"caf\xc3\xa9\""},  // UTF-8 stays readable
      {"\x80\xff", "\"\x80\xff\""},        // any byte >= 0x80 is kept
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.quoted);
    EXPECT_EQ(Quote(c.in), c.quoted);
  }
}

TEST(QuoteTest, ShortensLongTextToMaxShownBytes) {
  struct Case {
    std::string in;
    size_t max_shown;
    std::string quoted;
  };
  const Case cases[] = {
      {"abcdef", 3, R"("abc...")"},
      {"abc", 3, R"("abc")"},   // exactly at the limit: not shortened
      {"abcd", 0, R"("...")"},  // nothing shown
      {"", 0, R"("")"},
      {"\n\n\n", 2, R"("\x0a\x0a...")"},  // the limit counts input bytes, not escapes
      {"\"\"\"", 1, R"("\"...")"},
      {std::string(64, 'x'), 64, "\"" + std::string(64, 'x') + "\""},
      {std::string(65, 'x'), 64, "\"" + std::string(64, 'x') + "...\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.quoted);
    EXPECT_EQ(Quote(c.in, c.max_shown), c.quoted);
  }
}

TEST(QuoteTest, ShowsSixtyFourBytesByDefault) {
  EXPECT_EQ(Quote(std::string(64, 'y')), "\"" + std::string(64, 'y') + "\"");
  EXPECT_EQ(Quote(std::string(100, 'y')), "\"" + std::string(64, 'y') + "...\"");
}

TEST(SplitTest, KeepsEmptyPieces) {
  EXPECT_EQ(Split("a,,b", ','), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(Split("", ','), (std::vector<std::string_view>{""}));
  EXPECT_EQ(Split("gpu:b200:8", ':'), (std::vector<std::string_view>{"gpu", "b200", "8"}));
  EXPECT_EQ(Split(",", ','), (std::vector<std::string_view>{"", ""}));
}

TEST(SplitListTest, TrimsAndDropsEmptyPieces) {
  EXPECT_EQ(SplitList(" h1:1, ,h2:1\t,", ','), (std::vector<std::string>{"h1:1", "h2:1"}));
  EXPECT_EQ(SplitList("", ','), std::vector<std::string>());
  EXPECT_EQ(SplitList("one", ','), std::vector<std::string>{"one"});
}

}  // namespace
}  // namespace gantry::text
