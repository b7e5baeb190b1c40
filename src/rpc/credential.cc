#include "rpc/credential.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>
#include <munge.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include "sys/files.h"
#include "sys/random_bytes.h"

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

std::string Mac(const ClusterKey& key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  return ToHex(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string SignedPart(uint32_t uid, uint32_t gid, int64_t now, std::string_view nonce) {
  return "v2:" + std::to_string(uid) + ":" + std::to_string(gid) + ":" + std::to_string(now) + ":" +
         std::string(nonce);
}

// What a signature or a MUNGE payload covers besides the identity: the call.
std::string BindingText(const CallBinding& call) {
  return call.method + "\n" + call.audience + "\n" + call.body_sha256;
}

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  return ToHex(std::string_view(reinterpret_cast<const char*>(digest), length));
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
  GANTRY_RETURN_IF_ERROR(sys::CheckPrivateKeyFile(path));
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

Result<std::string> NewClusterKeyText() {
  GANTRY_ASSIGN_OR_RETURN(std::string bytes, sys::RandomBytes(32));
  return ToHex(bytes) + "\n";
}

CallBinding BindCall(const google::protobuf::Message& request, std::string_view audience) {
  std::string body;
  {
    google::protobuf::io::StringOutputStream stream(&body);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  return CallBinding{request.GetDescriptor()->full_name(), std::string(audience), Sha256Hex(body)};
}

std::string SignCredential(const ClusterKey& key, uint32_t uid, uint32_t gid, int64_t now,
                           const CallBinding& call) {
  // Without the kernel's randomness the nonce is empty: a malformed credential, refused.
  Result<std::string> nonce = sys::RandomBytes(16);
  const std::string part = SignedPart(uid, gid, now, nonce.ok() ? ToHex(*nonce) : "");
  return part + ":" + Mac(key, part + "\n" + BindingText(call));
}

Result<CheckedCredential> CheckCredential(const ClusterKey& key, std::string_view credential,
                                          int64_t now, const CallBinding& call) {
  // v2:uid:gid:time:nonce:mac
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (fields.size() <= 6) {
    const size_t colon = credential.find(':', start);
    fields.push_back(credential.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  uint32_t uid = 0;
  uint32_t gid = 0;
  int64_t time = 0;
  // Numbers as SignCredential prints them, and nothing else: one credential has one text
  // (found by fuzz/credential_fuzz.cc: "0" prefixes were accepted).
  if (fields.size() != 6 || fields[0] != "v2" || !ParseNumber(fields[1], &uid) ||
      !ParseNumber(fields[2], &gid) || !ParseNumber(fields[3], &time) || fields[4].size() != 32 ||
      fields[1] != std::to_string(uid) || fields[2] != std::to_string(gid) ||
      fields[3] != std::to_string(time)) {
    return PermissionDenied("malformed credential");
  }
  const std::string expected =
      Mac(key, SignedPart(uid, gid, time, fields[4]) + "\n" + BindingText(call));
  if (expected.size() != fields[5].size() ||
      CRYPTO_memcmp(expected.data(), fields[5].data(), expected.size()) != 0) {
    return PermissionDenied("credential signature does not match the cluster key and this call (" +
                            call.method + " for cluster " + call.audience + ")");
  }
  if (time < now - kCredentialTtlSeconds || time > now + kCredentialTtlSeconds) {
    return PermissionDenied("credential expired (signed at " + std::to_string(time) + ", now " +
                            std::to_string(now) + ", valid " +
                            std::to_string(kCredentialTtlSeconds) + " s either side)");
  }
  CheckedCredential checked;
  checked.who.uid = uid;
  checked.who.gid = gid;
  checked.nonce = std::string(fields[4]);
  checked.signed_at = time;
  return checked;
}

std::string CallHeader(const CallBinding& call) { return call.method + " " + call.body_sha256; }

std::optional<CallBinding> ParseCallHeader(std::string_view header, std::string_view audience) {
  const size_t space = header.find(' ');
  if (space == std::string_view::npos || space == 0 || header.size() - space - 1 != 64) {
    return std::nullopt;
  }
  CallBinding call;
  call.method = std::string(header.substr(0, space));
  call.audience = std::string(audience);
  call.body_sha256 = std::string(header.substr(space + 1));
  return call;
}

void AttachCredential(grpc::ClientContext* context, const ClusterKey& key,
                      const CallBinding& call) {
  context->AddMetadata(kCredentialKey,
                       SignCredential(key, getuid(), getgid(), std::time(nullptr), call));
  context->AddMetadata(kCallKey, CallHeader(call));
}

Status AttachMungeCredential(grpc::ClientContext* context, const CallBinding& call) {
  munge_ctx_t ctx = munge_ctx_create();
  if (ctx == nullptr) return Unavailable("munge: cannot create a context");
  munge_ctx_set(ctx, MUNGE_OPT_TTL, static_cast<int>(kCredentialTtlSeconds));
  const std::string payload = BindingText(call);
  char* cred = nullptr;
  const munge_err_t err =
      munge_encode(&cred, ctx, payload.data(), static_cast<int>(payload.size()));
  munge_ctx_destroy(ctx);
  if (err != EMUNGE_SUCCESS) {
    if (cred != nullptr) free(cred);
    return Unavailable(std::string("munge: ") + munge_strerror(err));
  }
  context->AddMetadata(kMungeKey, cred);
  context->AddMetadata(kCallKey, CallHeader(call));
  free(cred);
  return Status::Ok();
}

Result<PeerIdentity> CredentialVerifier::VerifyKeyCredential(std::string_view credential,
                                                             const CallBinding& call, int64_t now) {
  GANTRY_ASSIGN_OR_RETURN(CheckedCredential checked, CheckCredential(key_, credential, now, call));
  // Accepted once: the nonce is kept until the credential could no longer pass the age check.
  GANTRY_RETURN_IF_ERROR(
      seen_.Admit(checked.nonce, checked.signed_at + kCredentialTtlSeconds + 1, now));
  return checked.who;
}

namespace {

// What munged says of a credential (it refuses one it decoded before: a replay).
Result<std::pair<PeerIdentity, std::string>> DecodeWithMunged(const std::string& credential) {
  uid_t uid = 0;
  gid_t gid = 0;
  void* payload = nullptr;
  int length = 0;
  const munge_err_t err = munge_decode(credential.c_str(), nullptr, &payload, &length, &uid, &gid);
  std::string got(static_cast<const char*>(payload), payload == nullptr ? 0 : length);
  free(payload);
  if (err != EMUNGE_SUCCESS) {
    return PermissionDenied(std::string("munge credential refused: ") + munge_strerror(err));
  }
  PeerIdentity who;
  who.uid = uid;
  who.gid = gid;
  return std::make_pair(who, std::move(got));
}

Status OtherCall(const CallBinding& call) {
  return PermissionDenied("munge credential was made for another call (this one is " + call.method +
                          " for cluster " + call.audience + ")");
}

}  // namespace

Status CredentialVerifier::PrecheckMunge(std::string_view credential, const CallBinding& claimed,
                                         int64_t now) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(prechecked_, [now](const auto& entry) { return entry.second.expires <= now; });
    if (prechecked_.size() >= kMaxPrechecked) {
      return ResourceExhausted("too many calls with munge credentials wait for their handlers");
    }
  }
  GANTRY_ASSIGN_OR_RETURN(auto decoded, DecodeWithMunged(std::string(credential)));
  if (decoded.second != BindingText(claimed)) return OtherCall(claimed);
  std::lock_guard<std::mutex> lock(mu_);
  prechecked_[std::string(credential)] =
      Decoded{decoded.first, std::move(decoded.second), now + kCredentialTtlSeconds};
  return Status::Ok();
}

Result<CredentialVerifier::Decoded> CredentialVerifier::TakeOrDecode(
    const std::string& credential) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = prechecked_.find(credential); it != prechecked_.end()) {
      Decoded decoded = std::move(it->second);
      prechecked_.erase(it);
      return decoded;
    }
  }
  GANTRY_ASSIGN_OR_RETURN(auto decoded, DecodeWithMunged(credential));
  return Decoded{decoded.first, std::move(decoded.second), 0};
}

Result<PeerIdentity> CredentialVerifier::Verify(const grpc::ServerContext& context,
                                                const CallBinding& call, int64_t now) {
  if (std::optional<std::string_view> cred = Metadata(context, kCredentialKey)) {
    return VerifyKeyCredential(*cred, call, now);
  }
  if (std::optional<std::string_view> cred = Metadata(context, kMungeKey)) {
    GANTRY_ASSIGN_OR_RETURN(Decoded decoded, TakeOrDecode(std::string(*cred)));
    if (decoded.payload != BindingText(call)) return OtherCall(call);
    return decoded.who;
  }
  return PermissionDenied("no credential: the call carries neither " + std::string(kCredentialKey) +
                          " nor " + kMungeKey);
}

}  // namespace gantry::rpc
