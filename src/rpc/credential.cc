#include "rpc/credential.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <munge.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

namespace gantry::rpc {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string ToHex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]);
    const int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r > 0) got += static_cast<size_t>(r);
  }
  return out;
}

std::string Mac(const ClusterKey& key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  return ToHex(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string SignedPart(uint32_t uid, uint32_t gid, int64_t now, std::string_view nonce) {
  return "v1:" + std::to_string(uid) + ":" + std::to_string(gid) + ":" + std::to_string(now) + ":" +
         std::string(nonce);
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::optional<std::string_view> Metadata(const grpc::ServerContext& context, std::string_view k) {
  const auto& md = context.client_metadata();
  const auto it = md.find(grpc::string_ref(k.data(), k.size()));
  if (it == md.end()) return std::nullopt;
  return std::string_view(it->second.data(), it->second.size());
}

}  // namespace

Result<ClusterKey> LoadClusterKey(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return InvalidArgument("key file " + path + ": " + std::strerror(errno));
  }
  if ((st.st_mode & 077) != 0) {
    return PermissionDenied("key file " + path +
                            " is readable by group or others; it must be mode 0600");
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string hex = text.str();
  while (!hex.empty() && std::isspace(static_cast<unsigned char>(hex.back()))) hex.pop_back();
  while (!hex.empty() && std::isspace(static_cast<unsigned char>(hex.front()))) hex.erase(0, 1);
  if (hex.size() != 64) {
    return InvalidArgument("key file " + path + ": expected 64 hex characters, found " +
                           std::to_string(hex.size()) + " characters");
  }
  std::optional<std::string> bytes = FromHex(hex);
  if (!bytes) return InvalidArgument("key file " + path + ": not hexadecimal");
  return ClusterKey{std::move(*bytes)};
}

Result<std::string> NewClusterKeyText() { return ToHex(RandomBytes(32)) + "\n"; }

std::string SignCredential(const ClusterKey& key, uint32_t uid, uint32_t gid, int64_t now,
                           std::string_view method) {
  const std::string part = SignedPart(uid, gid, now, ToHex(RandomBytes(8)));
  return part + ":" + Mac(key, part + ":" + std::string(method));
}

Result<PeerIdentity> CheckCredential(const ClusterKey& key, std::string_view credential,
                                     int64_t now, std::string_view method) {
  // v1:uid:gid:time:nonce:mac
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t colon = credential.find(':', start);
    fields.push_back(credential.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  uint32_t uid = 0;
  uint32_t gid = 0;
  int64_t time = 0;
  if (fields.size() != 6 || fields[0] != "v1" || !ParseNumber(fields[1], &uid) ||
      !ParseNumber(fields[2], &gid) || !ParseNumber(fields[3], &time)) {
    return PermissionDenied("malformed credential");
  }
  const std::string expected =
      Mac(key, SignedPart(uid, gid, time, fields[4]) + ":" + std::string(method));
  if (expected.size() != fields[5].size() ||
      CRYPTO_memcmp(expected.data(), fields[5].data(), expected.size()) != 0) {
    return PermissionDenied("credential signature does not match the cluster key");
  }
  if (time < now - kCredentialTtlSeconds || time > now + kCredentialTtlSeconds) {
    return PermissionDenied("credential expired (signed at " + std::to_string(time) + ", now " +
                            std::to_string(now) + ")");
  }
  PeerIdentity who;
  who.uid = uid;
  who.gid = gid;
  return who;
}

void AttachCredential(grpc::ClientContext* context, const ClusterKey& key) {
  context->AddMetadata(kCredentialKey,
                       SignCredential(key, getuid(), getgid(), std::time(nullptr), ""));
}

Status AttachMungeCredential(grpc::ClientContext* context) {
  char* cred = nullptr;
  const munge_err_t err = munge_encode(&cred, nullptr, nullptr, 0);
  if (err != EMUNGE_SUCCESS) {
    if (cred != nullptr) free(cred);
    return Unavailable(std::string("munge: ") + munge_strerror(err));
  }
  context->AddMetadata(kMungeKey, cred);
  free(cred);
  return Status::Ok();
}

Result<PeerIdentity> VerifyCredential(const grpc::ServerContext& context, const ClusterKey& key) {
  if (std::optional<std::string_view> cred = Metadata(context, kCredentialKey)) {
    return CheckCredential(key, *cred, std::time(nullptr), "");
  }
  if (std::optional<std::string_view> cred = Metadata(context, kMungeKey)) {
    const std::string text(*cred);
    uid_t uid = 0;
    gid_t gid = 0;
    const munge_err_t err = munge_decode(text.c_str(), nullptr, nullptr, nullptr, &uid, &gid);
    if (err != EMUNGE_SUCCESS) {
      return PermissionDenied(std::string("munge credential refused: ") + munge_strerror(err));
    }
    PeerIdentity who;
    who.uid = uid;
    who.gid = gid;
    return who;
  }
  return PermissionDenied("no credential: the call carries neither " + std::string(kCredentialKey) +
                          " nor " + kMungeKey);
}

}  // namespace gantry::rpc
