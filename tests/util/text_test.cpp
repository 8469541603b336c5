#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/text.h"

namespace backendbench::util {
namespace {

TEST(Printable, EscapesWhatATerminalWouldActOn) {
  EXPECT_EQ(printable("aten.relu.default"), "aten.relu.default");
  EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(printable(std::string("nul\0tab\tnl\ndel\x7f", 15)), "nul\\x00tab\\x09nl\\x0adel\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82"), "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82");  // UTF-8 stays
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");       // C1 CSI, which some terminals obey
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");              // not UTF-8
  EXPECT_EQ(printable("\xe2\x86"), "\\xe2\\x86");              // cut sequence
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");              // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");      // surrogate
}

TEST(EditDistance, CountsEdits) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("relu", "relu"), 0u);
  EXPECT_EQ(edit_distance("reul", "relu"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(NearNames, ClosestPlausibleTyposFirst) {
  const std::vector<std::string> names = {"relu", "addmm", "add", "upsample_nearest2d_backward", "mul"};
  EXPECT_EQ(near_names("reul", names), std::vector<std::string>{"relu"});
  EXPECT_EQ(near_names("addd", names), (std::vector<std::string>{"add", "addmm"}));
  EXPECT_EQ(near_names("upsample_nearest2d_backwrd", names), std::vector<std::string>{"upsample_nearest2d_backward"});
  EXPECT_TRUE(near_names("convolution", names).empty());
  EXPECT_EQ(near_names("ad", names, 1).size(), 1u);
}

TEST(Text, TrimRemovesAsciiWhitespaceAtTheEnds) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("\v\fx\f\v"), "x");
  EXPECT_EQ(trim("x"), "x");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\n\v\f\r"), "");
  EXPECT_EQ(trim("\xc2\xa0x\xc2\xa0"), "\xc2\xa0x\xc2\xa0");  // a UTF-8 no-break space is text
  EXPECT_EQ(trim(std::string("\0x\0", 3)), std::string("\0x\0", 3));
  const std::string_view text = " in place ";
  EXPECT_EQ(trim(text).data(), text.data() + 1);  // a view into its argument
}

TEST(Text, JoinPutsTheSeparatorBetweenItems) {
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({"a", "b"}, ""), "ab");
  EXPECT_EQ(join({"", "a", ""}, ","), ",a,");  // empty items count
}

TEST(Text, ShellQuoteQuotesOnlyWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_quote("run"), "run");
  EXPECT_EQ(shell_quote("--data=/a/b.json"), "--data=/a/b.json");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("my folder"), "'my folder'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace backendbench::util
