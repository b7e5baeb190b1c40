#include "core/pass_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace gantry::core {
namespace {

// A side table in memory, as the store keeps it.
struct Table {
  std::map<std::string, std::string> values;
  SideTableGet get() {
    return [this](const std::string& key) -> Result<std::optional<std::string>> {
      const auto it = values.find(key);
      if (it == values.end()) return std::optional<std::string>();
      return std::optional<std::string>(it->second);
    };
  }
  void Put(const std::vector<std::pair<std::string, std::string>>& puts) {
    for (const auto& [key, value] : puts) values[key] = value;
  }
  size_t chunks() const {
    return std::ranges::count_if(values,
                                 [](const auto& kv) { return kv.first != kPassLogChunksKey; });
  }
};

v1::PassMark Mark(int64_t time, uint64_t seen, bool backfill = false) {
  v1::PassMark mark;
  mark.set_time(time);
  mark.set_seen(seen);
  mark.set_backfill(backfill);
  return mark;
}

TEST(PassLog, KeysSortInChunkOrder) {
  EXPECT_EQ(PassLogKey(0), "pass_log/00000000");
  EXPECT_LT(PassLogKey(9), PassLogKey(10));
}

TEST(PassLog, MarksComeBackInOrderAcrossChunks) {
  Table table;
  PassLogWriter writer;
  const int n = kPassMarksPerChunk * 2 + 3;
  for (int i = 0; i < n; ++i) table.Put(writer.Add(Mark(1000 + i, 10 * i, i % 30 == 0)));
  EXPECT_EQ(table.chunks(), 3u);
  Result<std::vector<v1::PassMark>> marks = ReadPassLog(table.get());
  ASSERT_TRUE(marks.ok()) << marks.status().ToString();
  ASSERT_EQ(marks->size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ((*marks)[i].time(), 1000 + i);
    EXPECT_EQ((*marks)[i].seen(), 10u * i);
    EXPECT_EQ((*marks)[i].backfill(), i % 30 == 0);
  }
}

TEST(PassLog, ResumedWriterGoesOnWhereTheLogStopped) {
  Table table;
  PassLogWriter first;
  for (int i = 0; i < kPassMarksPerChunk + 1; ++i) table.Put(first.Add(Mark(i, i)));
  // A restart reads the count of chunks, not the log.
  SideTableGet count_only = [&table](const std::string& key) -> Result<std::optional<std::string>> {
    if (key != kPassLogChunksKey) return Internal("read " + key);
    return table.get()(key);
  };
  Result<PassLogWriter> again = PassLogWriter::Resume(count_only);
  ASSERT_TRUE(again.ok());
  for (int i = kPassMarksPerChunk + 1; i < kPassMarksPerChunk + 5; ++i) {
    table.Put(again->Add(Mark(i, i)));
  }
  Result<std::vector<v1::PassMark>> marks = ReadPassLog(table.get());
  ASSERT_TRUE(marks.ok());
  ASSERT_EQ(marks->size(), static_cast<size_t>(kPassMarksPerChunk + 5));
  for (size_t i = 0; i < marks->size(); ++i) EXPECT_EQ((*marks)[i].time(), static_cast<int>(i));
}

TEST(PassLog, ChunkThatDoesNotParseIsNamed) {
  Table table;
  table.values[PassLogKey(0)] = "\xff\xff\xff";
  Result<std::vector<v1::PassMark>> marks = ReadPassLog(table.get());
  ASSERT_FALSE(marks.ok());
  EXPECT_NE(marks.status().ToString().find("pass_log/00000000"), std::string::npos);
}

TEST(PassLog, ACountThatDoesNotParseIsNamed) {
  Table table;
  table.values[kPassLogChunksKey] = "7x";
  Result<PassLogWriter> writer = PassLogWriter::Resume(table.get());
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().ToString().find("\"7x\""), std::string::npos);
}

}  // namespace
}  // namespace gantry::core
