#include "proc/usage_sampler.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <utility>

#include "proc/proc.h"

namespace gantry::proc {

void AddSample(UsageSamples* into, uint64_t rss_kib, uint64_t vmsize_kib, uint64_t read_bytes,
               uint64_t write_bytes) {
  ++into->samples;
  into->max_rss_kib = std::max(into->max_rss_kib, rss_kib);
  into->max_vmsize_kib = std::max(into->max_vmsize_kib, vmsize_kib);
  into->total_rss_kib += static_cast<double>(rss_kib);
  into->total_vmsize_kib += static_cast<double>(vmsize_kib);
  into->read_bytes = std::max(into->read_bytes, read_bytes);
  into->write_bytes = std::max(into->write_bytes, write_bytes);
}

void ParseIoStat(std::string_view text, uint64_t* read_bytes, uint64_t* write_bytes) {
  *read_bytes = 0;
  *write_bytes = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of(" \n", pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    uint64_t* into = word.starts_with("rbytes=")   ? read_bytes
                     : word.starts_with("wbytes=") ? write_bytes
                                                   : nullptr;
    if (into == nullptr) continue;
    uint64_t value = 0;
    const std::string_view digits = word.substr(7);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && ptr == digits.data() + digits.size()) *into += value;
  }
}

UsageSampler::UsageSampler(std::function<std::vector<pid_t>()> processes, std::string cgroup,
                           std::chrono::milliseconds period)
    : processes_(std::move(processes)), cgroup_(std::move(cgroup)), period_(period) {
  SampleOnce();
  if (period_.count() > 0) thread_ = std::thread([this] { Loop(); });
}

UsageSampler::~UsageSampler() { Stop(); }

void UsageSampler::SampleOnce() {
  static const uint64_t page_kib = std::max<int64_t>(sysconf(_SC_PAGESIZE), 1024) / 1024;
  uint64_t rss = 0;
  uint64_t vmsize = 0;
  uint64_t read = 0;
  uint64_t written = 0;
  bool any = false;
  for (pid_t pid : processes_()) {
    const std::optional<ProcStat> stat = ReadProcStat(pid);
    if (!stat || stat->state == 'Z') continue;
    any = true;
    rss += stat->rss_pages * page_kib;
    vmsize += stat->vsize_bytes / 1024;
    if (const std::optional<ProcIo> io = ReadProcIo(pid)) {
      read += io->read_bytes;
      written += io->write_bytes;
    }
  }
  if (!any) return;
  std::lock_guard<std::mutex> lock(mu_);
  AddSample(&samples_, rss, vmsize, read, written);
}

void UsageSampler::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    SampleOnce();
    lock.lock();
  }
}

UsageSamples UsageSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return samples_;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (!cgroup_.empty()) {
    std::ifstream in(cgroup_ + "/io.stat");
    std::stringstream text;
    text << in.rdbuf();
    uint64_t read = 0;
    uint64_t written = 0;
    ParseIoStat(text.str(), &read, &written);
    samples_.read_bytes = std::max(samples_.read_bytes, read);
    samples_.write_bytes = std::max(samples_.write_bytes, written);
  }
  return samples_;
}

}  // namespace gantry::proc
