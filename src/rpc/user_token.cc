#include "rpc/user_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <nlohmann/json.hpp>

namespace gantry::rpc {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return {reinterpret_cast<const char*>(digest), length};
}

// The JSON object `part` (base64url) holds; nullopt when it is not one.
std::optional<nlohmann::json> DecodeObject(std::string_view part) {
  std::optional<std::string> text = Base64UrlDecode(part);
  if (!text) return std::nullopt;
  nlohmann::json value = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_object()) return std::nullopt;
  return value;
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = static_cast<uint8_t>(bytes[i]) << 16 |
                       static_cast<uint8_t>(bytes[i + 1]) << 8 | static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    if (rest == 2) out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  static constexpr uint8_t kNone = 0xff;  // not in the alphabet
  static const std::array<uint8_t, 256> kValue = [] {
    std::array<uint8_t, 256> value{};
    value.fill(kNone);
    for (uint8_t i = 0; i < 64; ++i) value[static_cast<uint8_t>(kAlphabet[i])] = i;
    return value;
  }();
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    const uint8_t v = kValue[static_cast<uint8_t>(c)];
    if (v == kNone) return std::nullopt;
    bits = bits << 6 | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

TokenKey TokenKeyOf(const ClusterKey& cluster_key) {
  return TokenKey{HmacSha256(cluster_key.bytes, "gantry user token v1")};
}

std::string SignUserToken(const TokenKey& key, const TokenClaims& claims) {
  const nlohmann::ordered_json header = {{"alg", "HS256"}, {"typ", "JWT"}};
  const nlohmann::ordered_json payload = {
      {"exp", claims.expires_at}, {"iat", claims.issued_at}, {"sun", claims.user}};
  std::string signed_part = Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(payload.dump());
  const std::string signature = Base64UrlEncode(HmacSha256(key.bytes, signed_part));
  return signed_part + "." + signature;
}

Result<TokenClaims> VerifyUserToken(const TokenKey& key, std::string_view token, int64_t now) {
  const size_t first = token.find('.');
  const size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return Unauthenticated("malformed token: expected three base64url parts joined by '.'");
  }
  const std::optional<nlohmann::json> header = DecodeObject(token.substr(0, first));
  if (!header) return Unauthenticated("malformed token: its header is not a JSON object");
  const auto alg = header->find("alg");
  if (alg == header->end() || !alg->is_string()) {
    return Unauthenticated("malformed token: its header names no algorithm");
  }
  if (*alg != "HS256") {
    return Unauthenticated("token algorithm " + alg->get<std::string>() +
                           " is not accepted (only HS256)");
  }
  const std::optional<std::string> signature = Base64UrlDecode(token.substr(second + 1));
  const std::string expected = HmacSha256(key.bytes, token.substr(0, second));
  if (!signature || signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    return Unauthenticated("token signature does not match");
  }
  const std::optional<nlohmann::json> payload =
      DecodeObject(token.substr(first + 1, second - first - 1));
  if (!payload) return Unauthenticated("malformed token: its payload is not a JSON object");
  TokenClaims claims{};
  for (const auto& [name, field] :
       {std::pair{"exp", &claims.expires_at}, std::pair{"iat", &claims.issued_at}}) {
    const auto value = payload->find(name);
    if (value == payload->end() || !value->is_number_integer()) {
      return Unauthenticated(std::string("malformed token: claim \"") + name +
                             "\" is missing or not an integer");
    }
    *field = value->get<int64_t>();
  }
  for (const char* name : {"sun", "username"}) {
    const auto value = payload->find(name);
    if (value != payload->end() && value->is_string() && !value->get<std::string>().empty()) {
      claims.user = value->get<std::string>();
      break;
    }
  }
  if (claims.user.empty()) {
    return Unauthenticated("malformed token: it names no user (claim \"sun\")");
  }
  if (claims.expires_at <= now) {
    return Unauthenticated("token expired at " + std::to_string(claims.expires_at));
  }
  return claims;
}

}  // namespace gantry::rpc
