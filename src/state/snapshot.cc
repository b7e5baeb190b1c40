// ToSnapshot / FromSnapshot: the whole ClusterState as one v1::ClusterSnapshot and back.
#include <set>
#include <string>
#include <string_view>

#include "base/hash.h"
#include "state/cluster_state.h"

namespace gantry::state {

v1::ClusterSnapshot ToSnapshot(const ClusterState& state) {
  v1::ClusterSnapshot out;
  out.set_next_job_id(state.next_job_id);
  out.set_events_applied(state.events_applied);
  out.mutable_jobs()->Reserve(static_cast<int>(state.jobs.size()));
  for (const auto& [id, job] : state.jobs) *out.add_jobs() = job;
  out.mutable_nodes()->Reserve(static_cast<int>(state.nodes.size()));
  for (const v1::Node& node : state.nodes) *out.add_nodes() = node;
  for (const v1::Partition& p : state.partitions) *out.add_partitions() = p;
  for (const auto& [id, names] : state.completing) {
    v1::NodeNames& entry = (*out.mutable_completing())[id];
    for (const std::string& name : names) entry.add_names(name);
  }
  for (const auto& [name, o] : state.partition_overrides)
    (*out.mutable_partition_overrides())[name] = o;
  *out.mutable_accounting() = ToProto(state.accounting);
  return out;
}

Result<ClusterState> FromSnapshot(const v1::ClusterSnapshot& snapshot) {
  ClusterState state;
  state.next_job_id = snapshot.next_job_id() == 0 ? 1 : snapshot.next_job_id();
  state.events_applied = snapshot.events_applied();
  for (const v1::Job& job : snapshot.jobs()) {
    if (job.job_id() == 0) return InvalidArgument("snapshot: a job has id 0");
    if (!state.jobs.emplace(job.job_id(), job).second) {
      return InvalidArgument("snapshot: job " + std::to_string(job.job_id()) + " appears twice");
    }
  }
  std::set<std::string_view> names;
  for (const v1::Node& node : snapshot.nodes()) {
    if (!names.insert(node.name()).second) {
      return InvalidArgument("snapshot: node \"" + node.name() + "\" appears twice");
    }
  }
  state.nodes.assign(snapshot.nodes().begin(), snapshot.nodes().end());
  state.partitions.assign(snapshot.partitions().begin(), snapshot.partitions().end());
  for (const auto& [id, entry] : snapshot.completing()) {
    if (!state.jobs.contains(id)) {
      return InvalidArgument("snapshot: completing entry for unknown job " + std::to_string(id));
    }
    if (entry.names().empty()) continue;
    state.completing[id] = std::set<std::string>(entry.names().begin(), entry.names().end());
  }
  for (const auto& [name, o] : snapshot.partition_overrides()) state.partition_overrides[name] = o;
  state.accounting = FromProto(snapshot.accounting());
  RebuildIndexes(&state);
  return state;
}

namespace {

constexpr std::string_view kTrailerMagic = "GSN1";
constexpr size_t kTrailerBytes = 4 + 8 + 8;

void PutU64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetU64(std::string_view bytes) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return v;
}

}  // namespace

Result<std::string> EncodeSnapshot(const v1::ClusterSnapshot& snapshot) {
  const size_t size = snapshot.ByteSizeLong();
  if (size > kMaxSnapshotBytes) {
    return ResourceExhausted("snapshot: " + std::to_string(size) + " bytes, over the " +
                             std::to_string(kMaxSnapshotBytes) + " a store takes");
  }
  std::string out;
  if (!snapshot.SerializeToString(&out) || out.size() != size) {
    return Internal("snapshot: protobuf could not serialize " + std::to_string(size) + " bytes");
  }
  const uint64_t hash = Fnv1a64(out);
  out.append(kTrailerMagic);
  PutU64(size, &out);
  PutU64(hash, &out);
  return out;
}

Result<v1::ClusterSnapshot> DecodeSnapshot(std::string_view bytes) {
  if (bytes.empty()) return Internal("snapshot: empty (a snapshot always holds the cluster)");
  v1::ClusterSnapshot out;
  const bool trailer = bytes.size() >= kTrailerBytes &&
                       bytes.substr(bytes.size() - kTrailerBytes, 4) == kTrailerMagic;
  if (trailer) {
    const std::string_view message = bytes.substr(0, bytes.size() - kTrailerBytes);
    const uint64_t length = GetU64(bytes.substr(bytes.size() - 16));
    const uint64_t hash = GetU64(bytes.substr(bytes.size() - 8));
    if (length != message.size()) {
      return Internal("snapshot: " + std::to_string(message.size()) +
                      " bytes where its trailer says " + std::to_string(length) + " (truncated)");
    }
    if (Fnv1a64(message) != hash) return Internal("snapshot: its hash does not match (damaged)");
    bytes = message;
  }
  if (!out.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Internal("snapshot: does not parse as a ClusterSnapshot");
  }
  return out;
}

}  // namespace gantry::state
