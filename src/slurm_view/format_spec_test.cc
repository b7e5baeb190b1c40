#include "slurm_view/format_spec.h"

#include <gtest/gtest.h>

namespace gantry::slurm {
namespace {

TEST(FormatSpecTest, SplitsPrefixFieldsAndSuffixes) {
  const FormatSpec f = ParseFormatSpec("id:%.18i|%-5j%#P  x%%%N");
  EXPECT_EQ(f.prefix, "id:");
  ASSERT_EQ(f.fields.size(), 4u);
  EXPECT_EQ(f.fields[0].letter, 'i');
  EXPECT_TRUE(f.fields[0].right);
  EXPECT_EQ(f.fields[0].width, 18);
  EXPECT_EQ(f.fields[0].suffix, "|");
  EXPECT_EQ(f.fields[1].letter, '-');  // Slurm has no '-' flag: it is the field letter
  EXPECT_EQ(f.fields[1].suffix, "5j");
  EXPECT_TRUE(f.fields[2].auto_width);
  EXPECT_EQ(f.fields[2].letter, 'P');
  EXPECT_EQ(f.fields[2].suffix, "  x");  // "%%" vanishes, as with strtok
  EXPECT_EQ(f.fields[3].letter, 'N');
}

TEST(FormatSpecTest, PadsLikePrintStr) {
  EXPECT_EQ(PadField("abc", 0, false, true), "abc");
  EXPECT_EQ(PadField("abc", 5, false, true), "abc  ");
  EXPECT_EQ(PadField("abcdef", 4, false, false), "abcd");  // left always cuts
  EXPECT_EQ(PadField("abc", 5, true, true), "  abc");
  EXPECT_EQ(PadField("abcdef", 4, true, true), "abcd");
  EXPECT_EQ(PadField("abcdef", 4, true, false), "abcdef");
}

TEST(FormatSpecTest, AllFieldsAndLongFormat) {
  EXPECT_EQ(AllFieldsFormat().substr(0, 8), "%a|%b|%c");
  const std::vector<LongFieldSpec> f = ParseLongFormatSpec("JobId,Name:.30x,State:10");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].width, 20);
  EXPECT_TRUE(f[1].right);
  EXPECT_EQ(f[1].width, 30);
  EXPECT_EQ(f[1].suffix, "x");
  EXPECT_EQ(f[2].width, 10);
}

}  // namespace
}  // namespace gantry::slurm
