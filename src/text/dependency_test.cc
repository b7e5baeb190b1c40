#include "text/dependency.h"

#include <gtest/gtest.h>

#include <string>

namespace gantry::text {
namespace {

// A parsed dependency written back compactly: "all[afterok:5,after:3+10]".
std::string Show(std::string_view text) {
  Result<Dependency> d = ParseDependency(text);
  if (!d.ok()) return "error: " + d.status().message();
  std::string out = d->any ? "any[" : "all[";
  for (size_t i = 0; i < d->terms.size(); ++i) {
    const DependencyTerm& t = d->terms[i];
    if (i > 0) out += ",";
    out += std::string(DependencyTypeName(t.type));
    if (t.type == DependencyType::kSingleton) continue;
    out += ":" + std::to_string(t.job_id);
    if (!t.array_task.empty()) out += "_" + t.array_task;
    if (t.minutes != 0) out += "+" + std::to_string(t.minutes);
  }
  return out + "]";
}

TEST(ParseDependencyTest, AcceptsSlurmsForms) {
  const std::pair<const char*, const char*> cases[] = {
      {"afterok:5", "all[afterok:5]"},
      {"afterok:5:6", "all[afterok:5,afterok:6]"},
      {"afterany:5,afternotok:7", "all[afterany:5,afternotok:7]"},
      {"after:3+10?singleton", "any[after:3+10,singleton]"},
      {"singleton", "all[singleton]"},
      {"aftercorr:12_3", "all[aftercorr:12_3]"},
      {"afterok:12_*", "all[afterok:12_*]"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(Show(text), want) << text;
}

TEST(ParseDependencyTest, RefusesWhatSlurmRefuses) {
  const std::pair<const char*, const char*> cases[] = {
      {"afterok", "is not type:jobid"},
      {"afterok:", "is not a job id"},
      {"afterok:x", "\"x\" is not a job id"},
      {"afterok:0", "\"0\" is not a job id"},
      {"later:5", "unknown type \"later\""},
      {"afterok:5,afterok:6?afterok:7", "',' and '?' cannot be mixed"},
      {"afterok:5,", "an empty term"},
      {"afterok:5+3", "only after:jobid+minutes takes a delay"},
      {"after:5+x", "only after:jobid+minutes takes a delay"},
      {"afterok:5_x", "bad array task \"x\""},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = Show(text);
    EXPECT_NE(got.find(want), std::string::npos) << text << " -> " << got;
    EXPECT_EQ(got.rfind("error: invalid dependency \"" + std::string(text) + "\": ", 0), 0u) << got;
  }
}

}  // namespace
}  // namespace gantry::text
