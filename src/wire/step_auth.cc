#include "wire/step_auth.h"

// The low-level SHA-256 interface: deprecated in OpenSSL 3 in favour of EVP, but it pulls only
// the hash into the statically linked Slurm commands (EVP's HMAC brings the provider machinery).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cstring>

namespace gantry::wire {

std::string HmacSha256(std::string_view key, std::string_view message) {
  constexpr size_t kBlock = SHA256_CBLOCK;  // 64
  unsigned char block[kBlock] = {};
  SHA256_CTX ctx;
  if (key.size() > kBlock) {
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, key.data(), key.size());
    SHA256_Final(block, &ctx);
  } else {
    std::memcpy(block, key.data(), key.size());
  }
  unsigned char inner_pad[kBlock];
  unsigned char outer_pad[kBlock];
  for (size_t i = 0; i < kBlock; ++i) {
    inner_pad[i] = block[i] ^ 0x36;
    outer_pad[i] = block[i] ^ 0x5c;
  }
  unsigned char inner[SHA256_DIGEST_LENGTH];
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, inner_pad, kBlock);
  SHA256_Update(&ctx, message.data(), message.size());
  SHA256_Final(inner, &ctx);
  unsigned char outer[SHA256_DIGEST_LENGTH];
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, outer_pad, kBlock);
  SHA256_Update(&ctx, inner, sizeof(inner));
  SHA256_Final(outer, &ctx);
  OPENSSL_cleanse(block, sizeof(block));
  OPENSSL_cleanse(inner_pad, sizeof(inner_pad));
  OPENSSL_cleanse(outer_pad, sizeof(outer_pad));
  return {reinterpret_cast<const char*>(outer), sizeof(outer)};
}

std::string StepProof(std::string_view key, std::string_view role, std::string_view srun_nonce,
                      std::string_view agent_nonce, std::string_view node) {
  std::string message = "gantry step io v1\n";
  message += role;
  message += '\n';
  message += srun_nonce;
  message += agent_nonce;
  message += node;
  return HmacSha256(key, message);
}

bool SameProof(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace gantry::wire
