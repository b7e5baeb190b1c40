#include "rest/json_out.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace gantry::rest {
namespace {

TEST(JsonOutTest, NestsAndSeparatesMembers) {
  JsonOut out;
  out.BeginObject().Member("a", "x").MemberInt("b", -2).Key("c").BeginArray();
  out.Int(1).Bool(true).Null().BeginObject().EndObject().EndArray();
  out.Key("d").BeginObject().MemberBool("e", false).EndObject().EndObject();
  EXPECT_EQ(out.text(), R"({"a":"x","b":-2,"c":[1,true,null,{}],"d":{"e":false}})");
}

TEST(JsonOutTest, EscapesWhatJsonNeedsAndPassesOtherBytes) {
  JsonOut out;
  out.String(std::string("q\"b\\n\n\t\r\x01\x1f\xc3\xa9\xff", 13));
  EXPECT_EQ(out.text(), "\"q\\\"b\\\\n\\n\\t\\r\\u0001\\u001f\xc3\xa9\xff\"");
}

TEST(JsonOutTest, WritesSlurmrestdsNoValueStructs) {
  JsonOut out;
  out.BeginArray().NoValNumber(240).NoValUnset().NoValInfinite().NoValDouble(0.5);
  out.NoValDouble(std::nan("")).NoValDouble(INFINITY).EndArray();
  const nlohmann::json parsed = nlohmann::json::parse(out.text());
  EXPECT_EQ(parsed[0], nlohmann::json({{"set", true}, {"infinite", false}, {"number", 240}}));
  EXPECT_EQ(parsed[1], nlohmann::json({{"set", false}, {"infinite", false}, {"number", 0}}));
  EXPECT_EQ(parsed[2], nlohmann::json({{"set", false}, {"infinite", true}, {"number", 0}}));
  EXPECT_EQ(parsed[3], nlohmann::json({{"set", true}, {"infinite", false}, {"number", 0.5}}));
  EXPECT_EQ(parsed[4], parsed[1]);  // NaN: no value
  EXPECT_EQ(parsed[5], parsed[2]);
}

TEST(JsonOutTest, CsvArraysAndMembersNotSet) {
  JsonOut out;
  out.BeginObject().MemberCsvArray("s", "RUNNING,COMPLETING").MemberCsvArray("e", "");
  out.MemberNoVal("n", 7, /*set=*/false).EndObject();
  EXPECT_EQ(
      out.text(),
      R"({"s":["RUNNING","COMPLETING"],"e":[],"n":{"set":false,"infinite":false,"number":0}})");
}

TEST(JsonOutTest, ARawValueTakesItsPlaceAmongMembers) {
  JsonOut out;
  out.BeginObject().MemberInt("a", 1);
  out.Key("jobs").RawValue() += "[1,2]";
  out.MemberInt("b", 2).EndObject();
  EXPECT_EQ(out.text(), R"({"a":1,"jobs":[1,2],"b":2})");
}

TEST(JsonOutTest, SplicedPiecesGoOutAsTheyAre) {
  JsonOut part;
  part.BeginList().Int(1).Int(2).EndList();
  JsonOut out;
  out.BeginObject().Key("jobs").RawValue() += '[';
  out.Splice(std::move(part.text()));
  out.text() += ']';
  out.MemberInt("n", 2).EndObject();
  const std::vector<std::string> pieces = out.TakePieces();
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0] + pieces[1] + pieces[2], R"({"jobs":[1,2],"n":2})");
  EXPECT_EQ(pieces[1], "1,2");
}

}  // namespace
}  // namespace gantry::rest
