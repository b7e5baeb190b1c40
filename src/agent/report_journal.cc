#include "agent/report_journal.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "sys/files.h"

namespace gantry::agent {
namespace {

constexpr std::string_view kSuffix = ".report";

// The sequence numbers of the report files in `dir`, ascending.
std::vector<uint64_t> ListSeqs(const std::string& dir) {
  std::vector<uint64_t> seqs;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return seqs;
  while (dirent* entry = readdir(d)) {
    std::string_view name = entry->d_name;
    if (!name.ends_with(kSuffix)) continue;
    name.remove_suffix(kSuffix.size());
    uint64_t seq = 0;
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), seq);
    if (ec == std::errc() && ptr == name.data() + name.size()) seqs.push_back(seq);
  }
  closedir(d);
  std::sort(seqs.begin(), seqs.end());
  return seqs;
}

}  // namespace

Result<ReportJournal> ReportJournal::Open(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Unavailable("cannot make " + dir + ": " + std::strerror(errno));
  }
  const std::vector<uint64_t> seqs = ListSeqs(dir);
  return ReportJournal(dir, seqs.empty() ? 1 : seqs.back() + 1);
}

std::string ReportJournal::PathOf(uint64_t seq) const {
  return dir_ + "/" + std::to_string(seq) + std::string(kSuffix);
}

Result<uint64_t> ReportJournal::Append(const gantry::v1::JobReport& report) {
  const uint64_t seq = next_++;
  GANTRY_RETURN_IF_ERROR(sys::WriteFileAtomically(PathOf(seq), report.SerializeAsString(), 0600));
  return seq;
}

void ReportJournal::Remove(uint64_t seq) { unlink(PathOf(seq).c_str()); }

std::vector<std::pair<uint64_t, gantry::v1::JobReport>> ReportJournal::Load(
    std::vector<std::string>* problems) {
  std::vector<std::pair<uint64_t, gantry::v1::JobReport>> out;
  for (uint64_t seq : ListSeqs(dir_)) {
    Result<std::string> bytes = sys::ReadText(PathOf(seq));
    gantry::v1::JobReport report;
    if (!bytes.ok() || !report.ParseFromString(*bytes)) {
      problems->push_back(PathOf(seq));
      Remove(seq);
      continue;
    }
    out.emplace_back(seq, std::move(report));
  }
  return out;
}

}  // namespace gantry::agent
