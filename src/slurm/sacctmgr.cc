// sacctmgr: accounts, users, associations and QOS, with Slurm 22.05's grammar and texts.
//
//   sacctmgr [-i] [-n] [-p|-P] [-s] add|create account|user|qos NAMES [Key=Value...]
//   sacctmgr [-i] modify|update account|user|qos [NAMES] [where Key=Value...] set Key=Value...
//   sacctmgr [-i] delete|remove account|user|qos [NAMES] [where Key=Value...]
//   sacctmgr [-n] [-p|-P] [-s] list|show account|user|qos|association|cluster [NAMES]
//            [where Key=Value...] [format=F,...] [withassoc] [tree]
//
// The changes are worked out here against the database gantryd sent (slurm/sacctmgr_edit.h),
// printed, confirmed (without -i: "Would you like to commit changes?"), and sent with the
// database version they were made against; gantryd checks them again and commits them.
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"
#include "slurm/sacctmgr_edit.h"
#include "slurm/sacctmgr_list.h"
#include "slurm/sacctmgr_table.h"
#include "text/ascii.h"

namespace gantry::slurm {
namespace {

constexpr char kEntities[] =
    "Input line must include \"Account\", \"Association\", \"Cluster\", \"Configuration\",\n"
    "\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", \"Reservation\",\n"
    "\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", or \"WCKey\"\n";
constexpr char kAddEntities[] =
    "Input line must include \"Account\", \"Cluster\", \"Coordinator\", \"Federation\", "
    "\"QOS\", \"Resource\", or \"User\"\n";

struct SacctmgrOptions {
  bool immediate = false;
  bool no_header = false;
  bool with_assoc = false;
  TableStyle style = TableStyle::kAligned;
};

// Which entity a word names (Slurm's abbreviations), or kNone.
Entity EntityOf(std::string_view word) {
  if (Keyword(word, "Accounts", 3) || Keyword(word, "Acct", 4)) return Entity::kAccount;
  if (Keyword(word, "Users", 1)) return Entity::kUser;
  if (Keyword(word, "QOS", 1)) return Entity::kQos;
  if (Keyword(word, "Associations", 2)) return Entity::kAssociation;
  if (Keyword(word, "Clusters", 2)) return Entity::kCluster;
  return Entity::kNone;
}

class Sacctmgr {
 public:
  Sacctmgr(const SacctmgrOptions& options, CommandContext& ctx) : opt_(options), ctx_(ctx) {}

  int Run(const std::vector<std::string>& words) {
    if (words.empty()) return 0;
    const std::string& verb = words[0];
    const Entity entity = words.size() > 1 ? EntityOf(words[1]) : Entity::kNone;
    const std::vector<std::string> rest(words.begin() + std::min<size_t>(2, words.size()),
                                        words.end());
    if (Keyword(verb, "list", 3) || Keyword(verb, "show", 3)) {
      if (entity == Entity::kNone) {
        *ctx_.err << "No valid entity in list command\n" << kEntities;
        return 1;
      }
      return List(entity, rest);
    }
    const bool add = Keyword(verb, "add", 3) || Keyword(verb, "create", 3);
    const bool modify = Keyword(verb, "modify", 1) || Keyword(verb, "update", 1);
    const bool remove = Keyword(verb, "delete", 3) || Keyword(verb, "remove", 3);
    if (!add && !modify && !remove) {
      *ctx_.err << "invalid keyword: " << verb << "\n";
      return 1;
    }
    if (entity == Entity::kNone || entity == Entity::kAssociation || entity == Entity::kCluster) {
      const char* what = add ? "add" : modify ? "modify" : "delete";
      *ctx_.err << "No valid entity in " << what << " command\n"
                << (add ? kAddEntities : kEntities);
      return 1;
    }
    return Change(add      ? EditVerb::kAdd
                  : modify ? EditVerb::kModify
                           : EditVerb::kDelete,
                  entity, rest);
  }

 private:
  std::unique_ptr<ControllerClient> Connect() {
    return ConnectOrReport(ctx_, "sacctmgr", "sacctmgr: error: ");
  }

  int List(Entity entity, const std::vector<std::string>& words) {
    Result<ListSpec> spec = ParseListSpec(entity, words);
    if (!spec.ok()) {
      *ctx_.err << " " << spec.status().message() << "\n";
      return 1;
    }
    std::unique_ptr<ControllerClient> client = Connect();
    if (!client) return 1;
    Result<v1::AccountingDb> db = client->GetAccounting();
    Result<v1::GetConfigReply> config = client->GetConfig(v1::GetConfigRequest());
    if (!db.ok() || !config.ok()) {
      *ctx_.err << "sacctmgr: error: "
                << (db.ok() ? config.status().message() : db.status().message()) << "\n";
      return 1;
    }
    AccountingCluster cluster{config->cluster_name(), "127.0.0.1", "0"};
    for (const v1::ConfigEntry& e : config->entries()) {
      if (e.key() == "SlurmctldAddr" || e.key() == "ControllerAddress") {
        const size_t colon = e.value().rfind(':');
        if (colon != std::string::npos) {
          cluster.control_host = e.value().substr(0, colon);
          cluster.control_port = e.value().substr(colon + 1);
        }
      }
      if (e.key() == "SlurmctldPort") cluster.control_port = e.value();
    }
    Result<std::string> listing = RenderAccountingListing(
        entity, *spec, *db, cluster, opt_.with_assoc, opt_.style, opt_.no_header);
    if (!listing.ok()) {
      *ctx_.err << " " << listing.status().message() << "\n";
      return 1;
    }
    *ctx_.out << *listing;
    return 0;
  }

  int Change(EditVerb verb, Entity entity, const std::vector<std::string>& words) {
    std::unique_ptr<ControllerClient> client = Connect();
    if (!client) return 1;
    Result<v1::GetConfigReply> config = client->GetConfig(v1::GetConfigRequest());
    const std::string cluster = config.ok() ? config->cluster_name() : "";
    for (int attempt = 0;; ++attempt) {
      Result<v1::AccountingDb> db = client->GetAccounting();
      if (!db.ok()) {
        *ctx_.err << "sacctmgr: error: " << db.status().message() << "\n";
        return 1;
      }
      const Edit edit = WorkOutEdit(verb, entity, words, *db, cluster);
      if (attempt == 0) {
        *ctx_.out << edit.out;
        *ctx_.err << edit.err;
      }
      if (edit.exit_code != 0 || edit.nothing) return edit.exit_code;
      // Without -i the changes are shown first and confirmed.
      if (!opt_.immediate && attempt == 0) {
        *ctx_.out << edit.after;
        if (!Confirmed()) return 0;
      }
      v1::UpdateAccountingRequest request;
      *request.mutable_change() = edit.change;
      request.set_expected_version(db->version());
      Result<v1::UpdateAccountingReply> reply = client->UpdateAccounting(request);
      if (reply.ok()) {
        if (opt_.immediate) *ctx_.out << edit.after;
        return 0;
      }
      if (reply.status().code() == StatusCode::kFailedPrecondition && attempt < 3 &&
          reply.status().message().find("changed while") != std::string::npos) {
        continue;  // someone else changed the database meanwhile: work it out again
      }
      if (reply.status().code() == StatusCode::kPermissionDenied) {
        if (edit.problem.empty()) {
          *ctx_.err << "sacctmgr: error: Your user doesn't have privilege to perform this "
                       "action\n";
        } else {
          *ctx_.err << " " << edit.problem << ": " << reply.status().message() << "\n";
          return 1;
        }
      }
      *ctx_.err << " Error with request: " << reply.status().message() << "\n";
      return 1;
    }
  }

  // "Would you like to commit changes?"; anything but y/Y (or no answer) discards.
  bool Confirmed() const {
    *ctx_.out << "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): "
              << std::flush;
    std::string answer;
    if (ctx_.in != nullptr) std::getline(*ctx_.in, answer);
    *ctx_.out << "\n";
    if (!answer.empty() && (answer[0] == 'y' || answer[0] == 'Y')) return true;
    *ctx_.out << " Changes Discarded\n";
    return false;
  }

  const SacctmgrOptions& opt_;
  CommandContext& ctx_;
};

}  // namespace

int RunSacctmgr(const std::vector<std::string>& args, CommandContext& ctx) {
  SacctmgrOptions opt;
  std::vector<std::string> words;
  for (const std::string& a : args) {
    if (a.size() > 1 && a[0] == '-' && words.empty()) {
      if (a == "--immediate") {
        opt.immediate = true;
      } else if (a == "--noheader") {
        opt.no_header = true;
      } else if (a == "--parsable") {
        opt.style = TableStyle::kParsable;
      } else if (a == "--parsable2") {
        opt.style = TableStyle::kParsable2;
      } else if (a == "--associations") {
        opt.with_assoc = true;
      } else if (a == "--quiet" || a == "--readonly" || a == "--verbose") {
      } else if (a == "--version" || a == "-V") {
        *ctx.out << kVersionLine;
        return 0;
      } else if (a[1] != '-') {
        for (char c : a.substr(1)) {
          switch (c) {
            case 'i':
              opt.immediate = true;
              break;
            case 'n':
              opt.no_header = true;
              break;
            case 'p':
              opt.style = TableStyle::kParsable;
              break;
            case 'P':
              opt.style = TableStyle::kParsable2;
              break;
            case 's':
              opt.with_assoc = true;
              break;
            case 'Q':
            case 'r':
            case 'v':
              break;
            default:
              *ctx.err << "sacctmgr: invalid option -- '" << c << "'\n"
                       << "Try \"sacctmgr --help\" for more information\n";
              return 1;
          }
        }
      } else {
        *ctx.err << "sacctmgr: unrecognized option '" << a << "'\n"
                 << "Try \"sacctmgr --help\" for more information\n";
        return 1;
      }
      continue;
    }
    // Options may also follow the command (`list user -s`).
    if (a == "-s" || a == "--associations") {
      opt.with_assoc = true;
      continue;
    }
    if (a == "-i") {
      opt.immediate = true;
      continue;
    }
    if (a == "-n") {
      opt.no_header = true;
      continue;
    }
    if (a == "-p" || a == "-P") {
      opt.style = a == "-p" ? TableStyle::kParsable : TableStyle::kParsable2;
      continue;
    }
    words.push_back(a);
  }
  return Sacctmgr(opt, ctx).Run(words);
}

}  // namespace gantry::slurm
