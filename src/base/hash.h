// FNV-1a hashes: stable across builds and machines, for checksums kept on disk and names derived
// from paths. Not for anything an attacker chooses to collide.
#ifndef GANTRY_BASE_HASH_H_
#define GANTRY_BASE_HASH_H_

#include <cstdint>
#include <string_view>

namespace gantry {

constexpr uint32_t Fnv1a32(std::string_view bytes) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : bytes) hash = (hash ^ c) * 16777619u;
  return hash;
}

constexpr uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

}  // namespace gantry

#endif  // GANTRY_BASE_HASH_H_
