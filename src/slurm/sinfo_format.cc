#include "slurm/sinfo_format.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "slurm/scontrol_show.h"
#include "slurm_view/format_spec.h"
#include "slurm_view/job_view.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/duration.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

using Ctx = SinfoPrintContext;
constexpr uint32_t kMinAutoWidth = 9;

template <typename Get>
std::string MinMax(const SinfoRecord& r, Get get) {
  if (r.nodes.empty()) return "0";
  uint64_t lo = get(*r.nodes[0]);
  uint64_t hi = lo;
  for (const v1::Node* n : r.nodes) {
    lo = std::min<uint64_t>(lo, get(*n));
    hi = std::max<uint64_t>(hi, get(*n));
  }
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "+";
}

bool IsAllocated(const model::NodeState& s) {
  return s.base == model::NodeBaseState::kAllocated || s.base == model::NodeBaseState::kMixed ||
         s.Has(model::NodeFlag::kCompleting);
}

struct Counts {
  uint64_t alloc = 0, idle = 0, other = 0, total = 0;
};

Counts NodeCounts(const SinfoRecord& r) {
  Counts c;
  for (const v1::Node* n : r.nodes) {
    const model::NodeState s = NodeDisplayState(*n);
    if (s.Has(model::NodeFlag::kDrain)) {
      ++c.other;
    } else if (IsAllocated(s)) {
      ++c.alloc;
    } else if (s.base == model::NodeBaseState::kIdle) {
      ++c.idle;
    } else {
      ++c.other;
    }
    ++c.total;
  }
  return c;
}

Counts CpuCounts(const SinfoRecord& r) {
  Counts c;
  for (const v1::Node* n : r.nodes) {
    const model::NodeState s = NodeDisplayState(*n);
    c.alloc += n->alloc_cpus();
    c.total += n->cpus();
    const uint64_t free = n->cpus() > n->alloc_cpus() ? n->cpus() - n->alloc_cpus() : 0;
    if (s.Has(model::NodeFlag::kDrain) || s.base == model::NodeBaseState::kDown) {
      c.other += free;
    } else {
      c.idle += free;
    }
  }
  return c;
}

std::string CountsText(const Counts& c) {
  return std::to_string(c.alloc) + "/" + std::to_string(c.idle) + "/" + std::to_string(c.other) +
         "/" + std::to_string(c.total);
}

std::string NodeListOf(const SinfoRecord& r) {
  std::vector<std::string> names;
  for (const v1::Node* n : r.nodes) names.push_back(n->name());
  return text::CompressHostlistSorted(names);
}

std::string PartitionName(const SinfoRecord& r, int width) {
  if (r.partition == nullptr) return "n/a";
  std::string name = r.partition->name();
  if (r.partition->is_default()) {
    if (width == 0 || static_cast<int>(name.size()) < width) {
      name += "*";
    } else {
      name[static_cast<size_t>(width) - 1] = '*';
    }
  }
  return name;
}

std::string Avail(const SinfoRecord& r) {
  if (r.partition == nullptr) return "n/a";
  const std::string state = text::AsciiToUpper(r.partition->state());
  if (state.empty() || state == "UP") return "up";
  if (state == "DOWN") return "down";
  if (state == "DRAIN") return "drain";
  if (state == "INACTIVE") return "inact";
  return "unknown";
}

std::string TimeLimit(const SinfoRecord& r) {
  if (r.partition == nullptr) return "n/a";
  const uint32_t m = r.partition->max_time_min();
  if (m == 0 || m == kInfiniteMinutes) return "infinite";
  return text::FormatElapsed(static_cast<int64_t>(m) * 60);
}

std::string StateShort(const SinfoRecord& r) {
  return r.nodes.empty() ? std::string("n/a") : model::SinfoStateShort(r.state);
}

std::string StateLong(const SinfoRecord& r) {
  return r.nodes.empty() ? std::string("n/a") : model::SinfoStateLong(r.state);
}

const v1::Node* First(const SinfoRecord& r) { return r.nodes.empty() ? nullptr : r.nodes[0]; }

std::string ReasonUser(const SinfoRecord& r, const Ctx& ctx, bool long_name) {
  const v1::Node* n = First(r);
  if (n == nullptr || n->reason().empty()) return "Unknown";
  std::optional<std::string> name = ctx.user_name ? ctx.user_name(n->reason_uid()) : std::nullopt;
  if (!long_name) return name ? *name : std::to_string(n->reason_uid());
  return (name ? *name : std::to_string(n->reason_uid())) + "(" + std::to_string(n->reason_uid()) +
         ")";
}

const SinfoField kSinfoFormatFields[] = {
    {'a', "AVAIL", 0, true, [](const SinfoRecord& r, const Ctx&) { return Avail(r); }},
    {'c', "CPUS", kMatchCpus, false,
     [](const SinfoRecord& r, const Ctx&) {
       return MinMax(r, [](const v1::Node& n) { return n.cpus(); });
     }},
    {'C', "CPUS(A/I/O/T)", 0, false,
     [](const SinfoRecord& r, const Ctx&) { return CountsText(CpuCounts(r)); }},
    {'d', "TMP_DISK", 0, false, [](const SinfoRecord&, const Ctx&) { return std::string("0"); }},
    {'D', "NODES", 0, false,
     [](const SinfoRecord& r, const Ctx&) { return std::to_string(r.nodes.size()); }},
    {'e', "FREE_MEM", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return n && n->has_free_mem_mb() ? std::to_string(n->free_mem_mb()) : std::string("N/A");
     }},
    {'E', "REASON", kMatchReason, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return n && !n->reason().empty() ? n->reason() : std::string("none");
     }},
    {'f', "AVAIL_FEATURES", kMatchFeatures, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return n && !n->features().empty() ? n->features() : std::string("(null)");
     }},
    {'F', "NODES(A/I/O/T)", 0, false,
     [](const SinfoRecord& r, const Ctx&) { return CountsText(NodeCounts(r)); }},
    {'g', "GROUPS", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       if (!r.partition || r.partition->allow_groups().empty() ||
           text::EqualsIgnoreCase(r.partition->allow_groups(), "ALL")) {
         return std::string("all");
       }
       return r.partition->allow_groups();
     }},
    {'G', "GRES", kMatchGres, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return n && !n->gres().empty() ? n->gres() : std::string("(null)");
     }},
    {'h', "OVERSUBSCRIBE", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       if (!r.partition || r.partition->oversubscribe().empty()) return std::string("NO");
       return r.partition->oversubscribe();
     }},
    {'H', "TIMESTAMP", kMatchReasonTime, false,
     [](const SinfoRecord& r, const Ctx& c) {
       const v1::Node* n = First(r);
       if (n == nullptr || n->reason_time() == 0) return std::string("Unknown");
       return TimeText(n->reason_time(), c.tz ? *c.tz : TimeZone::Utc(), "Unknown");
     }},
    {'l', "TIMELIMIT", 0, true, [](const SinfoRecord& r, const Ctx&) { return TimeLimit(r); }},
    {'m', "MEMORY", kMatchMemory, false,
     [](const SinfoRecord& r, const Ctx&) {
       return MinMax(r, [](const v1::Node& n) { return n.real_memory_mb(); });
     }},
    {'n', "HOSTNAMES", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       std::vector<std::string> names;
       for (const v1::Node* n : r.nodes) {
         names.push_back(n->hostname().empty() ? n->name() : n->hostname());
       }
       return text::CompressHostlist(names);
     }},
    {'N', "NODELIST", 0, false, [](const SinfoRecord& r, const Ctx&) { return NodeListOf(r); }},
    {'o', "NODE_ADDR", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       std::vector<std::string> addrs;
       for (const v1::Node* n : r.nodes) {
         std::string a = n->address();
         const size_t colon = a.rfind(':');
         if (colon != std::string::npos) a.resize(colon);
         addrs.push_back(a.empty() ? n->name() : a);
       }
       return text::CompressHostlist(addrs);
     }},
    {'O', "CPU_LOAD", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       if (n == nullptr || !n->has_cpu_load()) return std::string("N/A");
       char buf[32];
       std::snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(n->cpu_load()) / 100.0);
       return std::string(buf);
     }},
    {'p', "PRIO_TIER", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       return r.partition ? std::to_string(r.partition->priority_tier()) : std::string("n/a");
     }},
    {'P', "PARTITION", kMatchPartition, true,
     [](const SinfoRecord& r, const Ctx&) { return PartitionName(r, 0); }},
    {'r', "ROOT", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       return std::string(r.partition && r.partition->root_only() ? "yes" : "no");
     }},
    {'R', "PARTITION", kMatchPartition, true,
     [](const SinfoRecord& r, const Ctx&) {
       return r.partition ? r.partition->name() : std::string("n/a");
     }},
    {'s', "JOB_SIZE", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       if (!r.partition) return std::string("n/a");
       const uint32_t lo = std::max<uint32_t>(1, r.partition->min_nodes());
       const uint32_t hi = r.partition->max_nodes();
       const std::string hi_text =
           (hi == 0 || hi == kInfiniteMinutes) ? std::string("infinite") : std::to_string(hi);
       if (hi_text == std::to_string(lo)) return hi_text;
       return std::to_string(lo) + "-" + hi_text;
     }},
    {'t', "STATE", kMatchState, false,
     [](const SinfoRecord& r, const Ctx&) { return StateShort(r); }},
    {'T', "STATE", kMatchState, false,
     [](const SinfoRecord& r, const Ctx&) { return StateLong(r); }},
    {'u', "USER", kMatchReasonUser, false,
     [](const SinfoRecord& r, const Ctx& c) { return ReasonUser(r, c, false); }},
    {'U', "USER", kMatchReasonUser, false,
     [](const SinfoRecord& r, const Ctx& c) { return ReasonUser(r, c, true); }},
    {'w', "WEIGHT", 0, false, [](const SinfoRecord&, const Ctx&) { return std::string("1"); }},
    {'X', "SOCKETS", kMatchSct, false,
     [](const SinfoRecord& r, const Ctx&) {
       return MinMax(r, [](const v1::Node& n) { return TopologyOf(n).sockets; });
     }},
    {'Y', "CORES", kMatchSct, false,
     [](const SinfoRecord& r, const Ctx&) {
       return MinMax(r, [](const v1::Node& n) { return TopologyOf(n).cores; });
     }},
    {'z', "S:C:T", kMatchSct, false,
     [](const SinfoRecord& r, const Ctx&) {
       return MinMax(r, [](const v1::Node& n) { return TopologyOf(n).sockets; }) + ":" +
              MinMax(r, [](const v1::Node& n) { return TopologyOf(n).cores; }) + ":" +
              MinMax(r, [](const v1::Node& n) { return TopologyOf(n).threads; });
     }},
    {'Z', "THREADS", kMatchSct, false,
     [](const SinfoRecord& r, const Ctx&) {
       return MinMax(r, [](const v1::Node& n) { return TopologyOf(n).threads; });
     }},
};

// -O names of the lettered fields (sinfo 22.05 opts.c).
constexpr std::pair<std::string_view, char> kLongNames[] = {
    {"Available", 'a'}, {"CPUs", 'c'},         {"CPUsState", 'C'},
    {"Disk", 'd'},      {"Nodes", 'D'},        {"FreeMem", 'e'},
    {"Reason", 'E'},    {"Features", 'f'},     {"NodeAIOT", 'F'},
    {"Groups", 'g'},    {"Gres", 'G'},         {"OverSubscribe", 'h'},
    {"Share", 'h'},     {"TimeStamp", 'H'},    {"Time", 'l'},
    {"Memory", 'm'},    {"NodeHost", 'n'},     {"NodeList", 'N'},
    {"NodeAddr", 'o'},  {"CPUsLoad", 'O'},     {"PriorityTier", 'p'},
    {"Partition", 'P'}, {"Root", 'r'},         {"PartitionName", 'R'},
    {"Size", 's'},      {"StateCompact", 't'}, {"StateLong", 'T'},
    {"User", 'u'},      {"UserLong", 'U'},     {"Weight", 'w'},
    {"Sockets", 'X'},   {"Cores", 'Y'},        {"SocketCoreThread", 'z'},
    {"Threads", 'Z'},
};

std::string Constant(const SinfoRecord&, const Ctx&, const char* value) { return value; }

// Fields only -O reaches.
const SinfoField kNamedFields[] = {
    {0, "ALLOCMEM", kMatchAllocMem, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return std::to_string(n ? n->alloc_mem_mb() : 0);
     },
     "AllocMem"},
    {0, "ALLOCNODES", 0, true,
     [](const SinfoRecord& r, const Ctx& c) { return Constant(r, c, r.partition ? "all" : "n/a"); },
     "AllocNodes"},
    {0, "CLUSTER", 0, false,
     [](const SinfoRecord& r, const Ctx& c) { return Constant(r, c, "N/A"); }, "Cluster"},
    {0, "COMMENT", 0, false,
     [](const SinfoRecord& r, const Ctx& c) { return Constant(r, c, "(null)"); }, "Comment"},
    {0, "DEFAULTTIME", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       const uint32_t m = r.partition ? r.partition->default_time_min() : 0;
       if (m == 0 || m == kInfiniteMinutes) return std::string("n/a");
       return text::FormatElapsed(static_cast<int64_t>(m) * 60);
     },
     "DefaultTime"},
    {0, "EXTRA", 0, false,
     [](const SinfoRecord& r, const Ctx& c) { return Constant(r, c, "(null)"); }, "Extra"},
    {0, "ACTIVE_FEATURES", kMatchFeatures, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return n && !n->features().empty() ? n->features() : std::string("(null)");
     },
     "features_act"},
    {0, "GRES_USED", kMatchGres, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       if (n == nullptr || n->gres().empty()) return std::string("(null)");
       const uint64_t used = GresCount(n->alloc_gres());
       std::string out = GresName(n->gres()) + ":" + std::to_string(used);
       if (used > 0) out += "(IDX:" + (used == 1 ? "0" : "0-" + std::to_string(used - 1)) + ")";
       return out;
     },
     "GresUsed"},
    {0, "MAX_CPUS_PER_NODE", 0, true,
     [](const SinfoRecord& r, const Ctx& c) { return Constant(r, c, "UNLIMITED"); },
     "MaxCPUsPerNode"},
    {0, "NODES(A/I)", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       const Counts c = NodeCounts(r);
       return std::to_string(c.alloc) + "/" + std::to_string(c.idle);
     },
     "NodeAI"},
    {0, "PORT", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       const size_t colon = n ? n->address().rfind(':') : std::string::npos;
       return colon == std::string::npos ? std::string("0") : n->address().substr(colon + 1);
     },
     "Port"},
    {0, "PREEMPT_MODE", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       if (!r.partition) return std::string("n/a");
       return r.partition->preempt_mode().empty() ? std::string("OFF")
                                                  : r.partition->preempt_mode();
     },
     "PreemptMode"},
    {0, "PRIO_JOB_FACTOR", 0, true,
     [](const SinfoRecord& r, const Ctx&) {
       return r.partition ? std::to_string(r.partition->priority_job_factor()) : std::string("n/a");
     },
     "PriorityJobFactor"},
    {0, "STATECOMPLETE", kMatchStateComplete, false,
     [](const SinfoRecord& r, const Ctx&) {
       return r.nodes.empty() ? std::string("n/a")
                              : text::AsciiToLower(model::NodeStateComplete(r.state));
     },
     "StateComplete"},
    {0, "VERSION", 0, false,
     [](const SinfoRecord& r, const Ctx&) {
       const v1::Node* n = First(r);
       return n && !n->version().empty() ? n->version() : std::string("N/A");
     },
     "Version"},
};

std::string SinfoFormatKeyOf(const v1::Node& node, uint32_t match, bool exact) {
  std::string key;
  if (match & kMatchState) key += "st:" + model::NodeStateString(NodeDisplayState(node)) + "|";
  if (match & kMatchStateComplete) {
    key += "sc:" + model::NodeStateComplete(NodeDisplayState(node)) + "|";
  }
  if (match & kMatchAllocMem) key += "am:" + std::to_string(node.alloc_mem_mb()) + "|";
  if (match & kMatchReason) key += "re:" + node.reason() + "|";
  if (match & kMatchReasonUser) key += "ru:" + std::to_string(node.reason_uid()) + "|";
  if (match & kMatchReasonTime) key += "rt:" + std::to_string(node.reason_time()) + "|";
  if (match & kMatchFeatures) key += "fe:" + node.features() + "|";
  if (match & kMatchGres) key += "gr:" + node.gres() + "|";
  if (exact) {
    if (match & kMatchCpus) key += "cp:" + std::to_string(node.cpus()) + "|";
    if (match & kMatchMemory) key += "me:" + std::to_string(node.real_memory_mb()) + "|";
    if (match & kMatchSct) {
      const NodeTopology t = TopologyOf(node);
      key += "sct:" + std::to_string(t.sockets) + ":" + std::to_string(t.cores) + ":" +
             std::to_string(t.threads) + "|";
    }
  }
  return key;
}

bool Selected(const v1::Node& node, const SinfoQuery& q) {
  const model::NodeState s = NodeDisplayState(node);
  if (!q.nodes.empty() && std::find(q.nodes.begin(), q.nodes.end(), node.name()) == q.nodes.end()) {
    return false;
  }
  const bool no_respond = s.Has(model::NodeFlag::kNoRespond);
  if (q.responding_only && no_respond) return false;
  if (q.dead_only && !no_respond && s.base != model::NodeBaseState::kDown) return false;
  if (q.states.has_value() && !q.states->Matches(s, node.alloc_cpus())) return false;
  if (q.reasons_only) {
    const bool listed = s.base == model::NodeBaseState::kDown || s.Has(model::NodeFlag::kDrain) ||
                        s.Has(model::NodeFlag::kFail);
    if (!listed || node.reason().empty()) return false;
  }
  return true;
}

int AutoWidth(const SinfoColumn& c, const std::vector<SinfoRecord>& records,
              const SinfoPrintContext& ctx) {
  size_t w = kMinAutoWidth;
  for (const SinfoRecord& r : records) w = std::max(w, c.field->value(r, ctx).size());
  return static_cast<int>(w);
}

}  // namespace

std::span<const SinfoField> SinfoFields() { return kSinfoFormatFields; }

const SinfoField* FindSinfoFieldByName(std::string_view name) {
  for (const auto& [long_name, letter] : kLongNames) {
    if (text::EqualsIgnoreCase(long_name, name)) return FindSinfoField(letter);
  }
  for (const SinfoField& f : kNamedFields) {
    if (text::EqualsIgnoreCase(f.name, name)) return &f;
  }
  return nullptr;
}

SinfoFormat ParseSinfoLongFormat(std::string_view format) {
  SinfoFormat out;
  for (const LongFieldSpec& f : ParseLongFormatSpec(format)) {
    SinfoColumn column;
    column.field = FindSinfoFieldByName(f.name);
    column.width = f.width;
    column.right = f.right;
    if (column.field == nullptr) {
      column.literal = f.suffix;
      out.errors.push_back("sinfo: error: Invalid job format specification: " + f.name);
    } else {
      column.suffix = f.suffix;
      out.match |= column.field->match;
      out.partition_fields = out.partition_fields || column.field->partition_field;
    }
    out.columns.push_back(std::move(column));
  }
  return out;
}

const SinfoField* FindSinfoField(char letter) {
  if (letter == 0) return nullptr;
  for (const SinfoField& f : kSinfoFormatFields) {
    if (f.letter == letter) return &f;
  }
  return nullptr;
}

SinfoFormat ParseSinfoFormat(std::string_view format) {
  const FormatSpec spec = ParseFormatSpec(format);
  SinfoFormat out;
  out.prefix = spec.prefix;
  for (const FieldSpec& f : spec.fields) {
    SinfoColumn column;
    column.field = FindSinfoField(f.letter);
    column.width = f.width;
    column.right = f.right;
    column.auto_width = f.auto_width;
    column.suffix = f.suffix;
    if (column.field == nullptr) {
      column.literal = "%" + std::string(f.right ? "." : "") +
                       (f.width > 0 ? std::to_string(f.width) : std::string()) +
                       std::string(f.letter ? 1 : 0, f.letter) + f.suffix;
      column.suffix.clear();
      out.errors.push_back("Invalid node format specification: " + std::string(1, f.letter));
    } else {
      out.match |= column.field->match;
      out.partition_fields = out.partition_fields || column.field->partition_field;
    }
    out.columns.push_back(std::move(column));
  }
  return out;
}

std::vector<SinfoRecord> BuildSinfoRecords(const v1::GetNodesReply& reply, const SinfoQuery& query,
                                           const SinfoFormat& format) {
  std::vector<SinfoRecord> records;
  auto add = [&](const v1::Partition* partition, int index, const v1::Node& node,
                 std::vector<std::pair<std::string, size_t>>* keys) {
    if (!query.node_oriented) {
      const std::string key = SinfoFormatKeyOf(node, format.match, query.exact);
      for (const auto& [k, at] : *keys) {
        if (k == key) {
          records[at].nodes.push_back(&node);
          return;
        }
      }
      keys->emplace_back(key, records.size());
    }
    SinfoRecord r;
    r.partition = partition;
    r.partition_index = index;
    r.nodes.push_back(&node);
    r.state = NodeDisplayState(node);
    records.push_back(std::move(r));
  };
  const bool by_partition =
      format.partition_fields || !query.partitions.empty() || query.node_oriented;
  if (!by_partition) {
    std::vector<std::pair<std::string, size_t>> keys;
    for (const v1::Node& node : reply.nodes()) {
      if (Selected(node, query)) add(nullptr, -1, node, &keys);
    }
    return records;
  }
  for (int i = 0; i < reply.partitions_size(); ++i) {
    const v1::Partition& p = reply.partitions(i);
    if (p.hidden() && !query.all) continue;
    if (!query.partitions.empty() && std::find(query.partitions.begin(), query.partitions.end(),
                                               p.name()) == query.partitions.end()) {
      continue;
    }
    std::vector<std::string> members;
    for (const std::string& expr : p.nodes()) {
      Result<std::vector<std::string>> names = text::ExpandHostlist(expr);
      if (names.ok()) members.insert(members.end(), names->begin(), names->end());
    }
    std::vector<std::pair<std::string, size_t>> keys;
    bool any = false;
    for (const v1::Node& node : reply.nodes()) {
      if (std::find(members.begin(), members.end(), node.name()) == members.end()) continue;
      any = true;
      if (Selected(node, query)) add(&p, i, node, &keys);
    }
    const bool filtering = query.states.has_value() || !query.nodes.empty() ||
                           query.responding_only || query.dead_only || query.reasons_only;
    if (!any && !filtering && !query.node_oriented) {
      SinfoRecord empty;
      empty.partition = &p;
      empty.partition_index = i;
      records.push_back(std::move(empty));
    }
  }
  return records;
}

void SortSinfoRecords(std::vector<SinfoRecord>* records, std::string_view sort) {
  using Cmp = std::function<int64_t(const SinfoRecord&, const SinfoRecord&)>;
  auto state_value = [](const SinfoRecord& r) -> int64_t {
    return r.nodes.empty()
               ? 0
               : static_cast<int64_t>(r.state.flags) + static_cast<int64_t>(r.state.base);
  };
  for (int i = static_cast<int>(sort.size()) - 1; i >= 0; --i) {
    const char c = sort[static_cast<size_t>(i)];
    if (c == ',' || c == '#' || c == '+' || c == '-') continue;
    const bool reverse = i > 0 && sort[static_cast<size_t>(i) - 1] == '-';
    const bool part_order = i > 0 && sort[static_cast<size_t>(i) - 1] == '#';
    Cmp cmp;
    switch (c) {
      case 'P':
        if (part_order) {
          cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
            return a.partition_index - b.partition_index;
          };
        } else {
          cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
            const std::string x = a.partition ? a.partition->name() : "";
            const std::string y = b.partition ? b.partition->name() : "";
            return x.compare(y);
          };
        }
        break;
      case 't':
      case 'T':
        cmp = [state_value](const SinfoRecord& a, const SinfoRecord& b) {
          return state_value(a) - state_value(b);
        };
        break;
      case 'N':
        cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
          if (a.nodes.empty() || b.nodes.empty()) {
            return static_cast<int64_t>(a.nodes.size()) - static_cast<int64_t>(b.nodes.size());
          }
          const std::vector<std::string> pair = {a.nodes[0]->name(), b.nodes[0]->name()};
          if (pair[0] == pair[1]) return 0;
          return text::SortHostlist(pair)[0] == pair[0] ? -1 : 1;
        };
        break;
      case 'D':
        cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
          return static_cast<int64_t>(a.nodes.size()) - static_cast<int64_t>(b.nodes.size());
        };
        break;
      case 'c':
        cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
          const int64_t x = a.nodes.empty() ? 0 : a.nodes[0]->cpus();
          const int64_t y = b.nodes.empty() ? 0 : b.nodes[0]->cpus();
          return x - y;
        };
        break;
      case 'm':
        cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
          const int64_t x =
              a.nodes.empty() ? 0 : static_cast<int64_t>(a.nodes[0]->real_memory_mb());
          const int64_t y =
              b.nodes.empty() ? 0 : static_cast<int64_t>(b.nodes[0]->real_memory_mb());
          return x - y;
        };
        break;
      case 'p':
        cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
          const int64_t x = a.partition ? a.partition->priority_tier() : 0;
          const int64_t y = b.partition ? b.partition->priority_tier() : 0;
          return x - y;
        };
        break;
      case 'R':
        cmp = [](const SinfoRecord& a, const SinfoRecord& b) -> int64_t {
          const std::string x = a.nodes.empty() ? "" : a.nodes[0]->reason();
          const std::string y = b.nodes.empty() ? "" : b.nodes[0]->reason();
          return x.compare(y);
        };
        break;
      default:
        continue;  // sinfo ignores keys it does not know
    }
    std::stable_sort(records->begin(), records->end(),
                     [&](const SinfoRecord& a, const SinfoRecord& b) {
                       const int64_t d = cmp(a, b);
                       return reverse ? d > 0 : d < 0;
                     });
  }
}

std::string RenderSinfo(const SinfoFormat& format, const std::vector<SinfoRecord>& records,
                        bool no_header, const SinfoPrintContext& ctx) {
  std::vector<int> widths;
  for (const SinfoColumn& c : format.columns) {
    int w = c.width;
    if (c.auto_width && c.field != nullptr) {
      w = AutoWidth(c, records, ctx);
      if (c.field->letter == 'P') {
        for (const SinfoRecord& r : records) {
          if (r.partition && r.partition->is_default()) {
            w = std::max<int>(w, static_cast<int>(r.partition->name().size()) + 1);
          }
        }
      }
    }
    widths.push_back(w);
  }
  std::string out;
  if (!no_header) {
    out += format.prefix;
    for (size_t i = 0; i < format.columns.size(); ++i) {
      const SinfoColumn& c = format.columns[i];
      if (c.field == nullptr) {
        out += c.literal;
        continue;
      }
      out += PadField(c.field->header, widths[i], c.right, c.field->letter != 'N') + c.suffix;
    }
    out += "\n";
  }
  for (const SinfoRecord& r : records) {
    out += format.prefix;
    for (size_t i = 0; i < format.columns.size(); ++i) {
      const SinfoColumn& c = format.columns[i];
      if (c.field == nullptr) {
        out += c.literal;
        continue;
      }
      std::string value =
          c.field->letter == 'P' ? PartitionName(r, widths[i]) : c.field->value(r, ctx);
      out += PadField(value, widths[i], c.right, true) + c.suffix;
    }
    out += "\n";
  }
  return out;
}

}  // namespace gantry::slurm
