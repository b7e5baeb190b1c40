#include "rpc/call_gate.h"

#include <ctime>
#include <string_view>

namespace gantry::rpc {
namespace {

// A MUNGE credential's text: "MUNGE:" and base64, a few hundred bytes for a short payload.
constexpr size_t kMaxMungeBytes = 4096;

std::string_view Value(const grpc::AuthMetadataProcessor::InputMetadata& metadata,
                       std::string_view key) {
  const auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
  if (it == metadata.end()) return {};
  return std::string_view(it->second.data(), it->second.size());
}

grpc::Status Refuse(const std::string& why) {
  return {grpc::StatusCode::UNAUTHENTICATED, "refused before the request was read: " + why};
}

}  // namespace

grpc::Status CallGate::Process(const InputMetadata& metadata, grpc::AuthContext* context,
                               OutputMetadata* /*consumed*/, OutputMetadata* /*response*/) {
  // A peer certificate was verified against the cluster's CA during the handshake.
  if (context != nullptr && context->IsPeerAuthenticated()) return grpc::Status::OK;
  const std::string_view munge = Value(metadata, kMungeKey);
  const std::string_view credential = Value(metadata, kCredentialKey);
  if (munge.empty() && credential.empty()) {
    return Refuse("no credential: the call carries neither " + std::string(kCredentialKey) +
                  " nor " + std::string(kMungeKey) + " nor a certificate of the cluster");
  }
  const std::optional<CallBinding> claimed = ParseCallHeader(Value(metadata, kCallKey), audience_);
  if (!claimed) return Refuse("no " + std::string(kCallKey) + " header naming the call");
  const int64_t now = std::time(nullptr);
  if (!credential.empty()) {
    Result<CheckedCredential> checked = CheckCredential(key_, credential, now, *claimed);
    return checked.ok() ? grpc::Status::OK : Refuse(checked.status().message());
  }
  if (!munge.starts_with("MUNGE:") || munge.size() > kMaxMungeBytes) {
    return Refuse("malformed munge credential");
  }
  const Status decoded = verifier_->PrecheckMunge(munge, *claimed, now);
  return decoded.ok() ? grpc::Status::OK : Refuse(decoded.message());
}

}  // namespace gantry::rpc
