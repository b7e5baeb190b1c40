// What a standby controller answers (decision 0017): every call but Ping is refused with
// Unavailable and this text, so that commands and agents that know every controller's address
// try the next one until they reach the leader. A refused call did nothing: retrying it
// elsewhere cannot do it twice.
#ifndef GANTRY_MODEL_STANDBY_H_
#define GANTRY_MODEL_STANDBY_H_

#include <string>
#include <string_view>

namespace gantry::model {

inline constexpr std::string_view kStandbyMark = " is on standby";

// "gantryd NAME is on standby; the leader is LEADER" (LEADER: "NAME HOST:PORT", or "not
// known yet" when empty).
inline std::string StandbyRefusal(const std::string& name, const std::string& leader) {
  return "gantryd " + name + std::string(kStandbyMark) + "; the leader is " +
         (leader.empty() ? std::string("not known yet") : leader);
}

inline bool IsStandbyRefusal(std::string_view message) {
  return message.starts_with("gantryd ") && message.find(kStandbyMark) != std::string_view::npos;
}

// The leader's address a refusal names ("" when it names none).
inline std::string_view LeaderAddressIn(std::string_view refusal) {
  constexpr std::string_view kLeader = "; the leader is ";
  const size_t at = refusal.find(kLeader);
  if (at == std::string_view::npos) return {};
  const std::string_view holder = refusal.substr(at + kLeader.size());
  const size_t space = holder.find(' ');
  return space == std::string_view::npos ? std::string_view() : holder.substr(space + 1);
}

}  // namespace gantry::model

#endif  // GANTRY_MODEL_STANDBY_H_
