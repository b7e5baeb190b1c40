#include "text/dependency.h"

#include <charconv>

namespace gantry::text {
namespace {

struct TypeName {
  std::string_view name;
  DependencyType type;
};

constexpr TypeName kTypes[] = {
    {"after", DependencyType::kAfter},
    {"afterany", DependencyType::kAfterAny},
    {"afterok", DependencyType::kAfterOk},
    {"afternotok", DependencyType::kAfterNotOk},
    {"aftercorr", DependencyType::kAfterCorr},
    {"afterburstbuffer", DependencyType::kAfterBurstBuffer},
    {"singleton", DependencyType::kSingleton},
};

bool ParseNumber(std::string_view text, uint32_t* out) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

Status Invalid(std::string_view text, const std::string& why) {
  return InvalidArgument("invalid dependency \"" + std::string(text) + "\": " + why);
}

}  // namespace

std::string_view DependencyTypeName(DependencyType type) {
  for (const TypeName& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return "";
}

Result<Dependency> ParseDependency(std::string_view text) {
  Dependency dep;
  const bool has_and = text.find(',') != std::string_view::npos;
  const bool has_or = text.find('?') != std::string_view::npos;
  if (has_and && has_or) return Invalid(text, "',' and '?' cannot be mixed");
  dep.any = has_or;
  const char separator = has_or ? '?' : ',';
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(separator, at), text.size());
    const std::string_view part = text.substr(at, end - at);
    at = end + 1;
    if (part.empty()) return Invalid(text, "an empty term");
    if (part == "singleton") {
      dep.terms.push_back({DependencyType::kSingleton, 0, "", 0});
      continue;
    }
    const size_t colon = part.find(':');
    if (colon == std::string_view::npos) {
      return Invalid(text, "\"" + std::string(part) + "\" is not type:jobid");
    }
    const std::string_view name = part.substr(0, colon);
    const TypeName* type = nullptr;
    for (const TypeName& t : kTypes) {
      if (t.name == name && t.type != DependencyType::kSingleton) type = &t;
    }
    if (type == nullptr) return Invalid(text, "unknown type \"" + std::string(name) + "\"");
    std::string_view ids = part.substr(colon + 1);
    while (true) {
      const size_t next = ids.find(':');
      std::string_view id = ids.substr(0, next);
      DependencyTerm term;
      term.type = type->type;
      if (const size_t plus = id.find('+'); plus != std::string_view::npos) {
        if (type->type != DependencyType::kAfter ||
            !ParseNumber(id.substr(plus + 1), &term.minutes)) {
          return Invalid(text, "\"+" + std::string(id.substr(plus + 1)) +
                                   "\": only after:jobid+minutes takes a delay");
        }
        id = id.substr(0, plus);
      }
      if (const size_t underscore = id.find('_'); underscore != std::string_view::npos) {
        term.array_task = std::string(id.substr(underscore + 1));
        uint32_t task = 0;
        if (term.array_task != "*" && !ParseNumber(term.array_task, &task)) {
          return Invalid(text, "bad array task \"" + term.array_task + "\"");
        }
        id = id.substr(0, underscore);
      }
      if (!ParseNumber(id, &term.job_id) || term.job_id == 0) {
        return Invalid(text, "\"" + std::string(id) + "\" is not a job id");
      }
      dep.terms.push_back(std::move(term));
      if (next == std::string_view::npos) break;
      ids = ids.substr(next + 1);
    }
  }
  return dep;
}

std::string FormatDependencyTerm(const DependencyTerm& term) {
  std::string out(DependencyTypeName(term.type));
  if (term.type == DependencyType::kSingleton) return out;
  out += ":" + std::to_string(term.job_id);
  if (!term.array_task.empty()) out += "_" + term.array_task;
  if (term.minutes != 0) out += "+" + std::to_string(term.minutes);
  return out;
}

}  // namespace gantry::text
