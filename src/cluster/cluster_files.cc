#include "cluster/cluster_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "spec/spec_json.h"
#include "spec/validate.h"
#include "sys/files.h"
#include "tls/cluster_tls.h"

namespace gantry::cluster {

namespace fs = std::filesystem;
using sys::ReadText;
using sys::WriteFileAtomically;

namespace {

Result<spec::ClusterSpec> CheckText(const std::string& text, const std::string& path) {
  spec::CheckedSpec checked = spec::CheckSpecText(text);
  if (checked.ok()) return std::move(*checked.spec);
  const spec::Diagnostics& d = checked.diagnostics;
  std::string message;
  for (const spec::Diagnostic& x : d.items()) message += path + ": " + x.ToString() + "\n";
  message += path + ": " + std::to_string(d.size()) + (d.size() == 1 ? " problem" : " problems");
  return InvalidArgument(message);
}

}  // namespace

Result<spec::ClusterSpec> ReadSpecFile(const std::string& path) {
  GANTRY_ASSIGN_OR_RETURN(const std::string text, ReadText(path));
  return CheckText(text, path);
}

std::string RenderGantryConf(std::string_view cluster_name, const StateDir& dir,
                             const Replicas* replicas) {
  std::string conf;
  conf += "ClusterName=" + std::string(cluster_name) + "\n";
  conf += "StateDir=" + dir.dir() + "\n";
  if (replicas != nullptr) {
    // Every replica's way in: the commands follow the leader among them.
    std::string commands;
    std::string sockets;
    for (const Replica& r : replicas->controllers) {
      commands += (commands.empty() ? "" : ",") + ReplicaRunDir(dir, r.name) + "/commands.sock";
      sockets += (sockets.empty() ? "" : ",") + ReplicaRunDir(dir, r.name) + "/gantryd.sock";
    }
    conf += "CommandSocket=" + commands + "\n";
    conf += "ControllerSocket=" + sockets + "\n";
    conf += "ControllerAddress=" + replicas->ControllerAddresses() + "\n";
  } else {
    conf += "CommandSocket=" + dir.command_socket() + "\n";
    conf += "ControllerSocket=" + dir.socket() + "\n";
    conf += "ControllerAddressFile=" + dir.addr_file() + "\n";
  }
  conf += "KeyFile=" + dir.key() + "\n";
  conf += "CaFile=" + tls::TlsPaths{dir.tls()}.ca_cert() + "\n";
  return conf;
}

Result<std::string> NewKeyText() {
  unsigned char bytes[32];
  std::ifstream in("/dev/urandom", std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof(bytes))) {
    return Unavailable("cannot read 32 bytes from /dev/urandom");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(65);
  for (unsigned char b : bytes) {
    text += kHex[b >> 4];
    text += kHex[b & 0xf];
  }
  text += '\n';
  return text;
}

Result<Cluster> CreateClusterFiles(const spec::ClusterSpec& spec, const StateDir& dir) {
  if (dir.HoldsCluster()) {
    return AlreadyExists(dir.dir() + " already holds a cluster (" + dir.spec() +
                         "); delete it first (gantry cluster delete --state-dir " + dir.dir() +
                         ") or pick another --state-dir");
  }
  GANTRY_RETURN_IF_ERROR(dir.CheckSocketPath());
  GANTRY_ASSIGN_OR_RETURN(spec::EffectiveConfig config, spec::BuildEffectiveConfig(spec));
  std::error_code ec;
  const bool existed = fs::exists(dir.dir(), ec);
  if (existed) {
    if (!fs::is_directory(dir.dir(), ec)) {
      return AlreadyExists(dir.dir() + " exists and is not a directory");
    }
    if (!fs::is_empty(dir.dir(), ec)) {
      return AlreadyExists(dir.dir() +
                           " exists and is not empty; a cluster needs a folder of "
                           "its own");
    }
  }
  // From here on, undo what we created on any failure.
  auto cleanup = [&](Status s) -> Status {
    std::error_code ignored;
    if (existed) {
      for (fs::directory_iterator it(dir.dir(), ignored), end; !ignored && it != end;
           it.increment(ignored)) {
        std::error_code e2;
        fs::remove_all(it->path(), e2);
      }
    } else {
      fs::remove_all(dir.dir(), ignored);
    }
    return s;
  };
  if (Status s = dir.Secure(); !s.ok()) return cleanup(s);
  GANTRY_ASSIGN_OR_RETURN(const std::string key, NewKeyText());
  Status s = WriteFileAtomically(dir.key(), key, 0600);
  if (s.ok()) s = tls::EnsureClusterCertificates(tls::TlsPaths{dir.tls()}, ComputeNodes(config));
  if (s.ok()) s = WriteFileAtomically(dir.conf(), RenderGantryConf(config.cluster_name, dir), 0644);
  // spec.json last: its presence is what marks the folder as a cluster. Private: it may hold
  // the database password.
  if (s.ok()) s = WriteFileAtomically(dir.spec(), spec::SpecToJsonText(spec), 0600);
  if (!s.ok()) return cleanup(s);
  return Cluster{dir, spec, std::move(config)};
}

Result<Cluster> LoadCluster(const StateDir& dir) {
  GANTRY_ASSIGN_OR_RETURN(const std::string text, ReadText(dir.spec()));
  GANTRY_ASSIGN_OR_RETURN(spec::ClusterSpec spec, CheckText(text, dir.spec()));
  GANTRY_ASSIGN_OR_RETURN(spec::EffectiveConfig config, spec::BuildEffectiveConfig(spec));
  return Cluster{dir, std::move(spec), std::move(config)};
}

Status RefreshGantryConf(const StateDir& dir, std::string_view cluster_name,
                         const Replicas* replicas) {
  const std::string conf = RenderGantryConf(cluster_name, dir, replicas);
  Result<std::string> now = ReadText(dir.conf());
  if (now.ok() && *now == conf) return Status::Ok();
  return WriteFileAtomically(dir.conf(), conf, 0644);
}

Status WriteSpecFile(const StateDir& dir, const spec::ClusterSpec& spec) {
  return WriteFileAtomically(dir.spec(), spec::SpecToJsonText(spec), 0600);
}

std::vector<std::string> ComputeNodes(const spec::EffectiveConfig& config) {
  std::vector<std::string> nodes;
  for (const spec::EffectivePool& pool : config.pools) {
    if (pool.login) continue;
    nodes.insert(nodes.end(), pool.node_names.begin(), pool.node_names.end());
  }
  return nodes;
}

}  // namespace gantry::cluster
