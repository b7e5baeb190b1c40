#include "slurm/option_parser.h"

namespace gantry::slurm {
namespace {

const ShortOption* FindShort(std::span<const ShortOption> options, char letter) {
  for (const ShortOption& o : options) {
    if (o.letter == letter) return &o;
  }
  return nullptr;
}

std::string OptionParserPrefix(std::string_view program) { return std::string(program) + ": "; }

// Handles "--text" at args[*index]; advances *index past what it consumed. Returns false on an
// error (stored in out->error).
bool ParseLong(std::string_view program, const std::vector<std::string>& args, size_t* index,
               std::span<const LongOption> long_options, ParsedArgs* out) {
  const std::string& arg = args[*index];
  const std::string_view text = std::string_view(arg).substr(2);  // after "--"
  const size_t eq = text.find('=');
  const std::string_view name = text.substr(0, eq);
  ++*index;

  const LongOption* found = nullptr;
  for (const LongOption& o : long_options) {
    if (o.name == name) {
      found = &o;
      break;
    }
  }
  if (found == nullptr) {
    std::vector<const LongOption*> ambiguous;
    const LongOption* first = nullptr;
    for (const LongOption& o : long_options) {
      if (o.name.substr(0, name.size()) != name) continue;
      if (first == nullptr) {
        first = &o;
      } else if (o.arg != first->arg || o.id != first->id) {
        if (ambiguous.empty()) ambiguous.push_back(first);
        ambiguous.push_back(&o);
      }
    }
    if (!ambiguous.empty()) {
      out->error = OptionParserPrefix(program) + "option '--" + std::string(text) +
                   "' is ambiguous; possibilities:";
      // glibc lists them in table order.
      for (const LongOption& o : long_options) {
        for (const LongOption* a : ambiguous) {
          if (a == &o) out->error += " '--" + std::string(o.name) + "'";
        }
      }
      return false;
    }
    found = first;
  }
  if (found == nullptr) {
    out->error = OptionParserPrefix(program) + "unrecognized option '--" + std::string(text) + "'";
    return false;
  }

  ParsedOption parsed;
  parsed.id = found->id;
  parsed.spelling = "--" + std::string(name);
  if (eq != std::string_view::npos) {
    if (found->arg == ArgKind::kNone) {
      out->error = OptionParserPrefix(program) + "option '--" + std::string(found->name) +
                   "' doesn't allow an argument";
      return false;
    }
    parsed.value = std::string(text.substr(eq + 1));
  } else if (found->arg == ArgKind::kRequired) {
    if (*index >= args.size()) {
      out->error = OptionParserPrefix(program) + "option '--" + std::string(found->name) +
                   "' requires an argument";
      return false;
    }
    parsed.value = args[*index];
    ++*index;
  }
  out->options.push_back(std::move(parsed));
  return true;
}

// Handles a cluster of short options ("-hN2") at args[*index].
bool ParseShort(std::string_view program, const std::vector<std::string>& args, size_t* index,
                std::span<const ShortOption> short_options, ParsedArgs* out) {
  const std::string& arg = args[*index];
  ++*index;
  for (size_t i = 1; i < arg.size(); ++i) {
    const char letter = arg[i];
    const ShortOption* option = FindShort(short_options, letter);
    if (option == nullptr) {
      out->error =
          OptionParserPrefix(program) + "invalid option -- '" + std::string(1, letter) + "'";
      return false;
    }
    ParsedOption parsed;
    parsed.id = static_cast<unsigned char>(letter);
    parsed.spelling = std::string("-") + letter;
    if (option->arg == ArgKind::kNone) {
      out->options.push_back(std::move(parsed));
      continue;
    }
    if (i + 1 < arg.size()) {
      parsed.value = arg.substr(i + 1);
    } else if (option->arg == ArgKind::kRequired) {
      if (*index >= args.size()) {
        out->error = OptionParserPrefix(program) + "option requires an argument -- '" +
                     std::string(1, letter) + "'";
        return false;
      }
      parsed.value = args[*index];
      ++*index;
    }
    out->options.push_back(std::move(parsed));
    return true;
  }
  return true;
}

}  // namespace

ParsedArgs ParseArgs(std::string_view program, const std::vector<std::string>& args,
                     std::span<const ShortOption> short_options,
                     std::span<const LongOption> long_options, ArgOrder order) {
  ParsedArgs out;
  size_t index = 0;
  while (index < args.size()) {
    const std::string& arg = args[index];
    if (arg == "--") {
      for (++index; index < args.size(); ++index) out.operands.push_back(args[index]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (order == ArgOrder::kRequireOrder) {
        for (; index < args.size(); ++index) out.operands.push_back(args[index]);
        break;
      }
      out.operands.push_back(arg);
      ++index;
      continue;
    }
    const bool ok = arg[1] == '-' ? ParseLong(program, args, &index, long_options, &out)
                                  : ParseShort(program, args, &index, short_options, &out);
    if (!ok) break;
  }
  return out;
}

}  // namespace gantry::slurm
