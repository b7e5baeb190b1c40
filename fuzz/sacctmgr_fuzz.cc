// Fuzz target for sacctmgr's grammar (slurm/sacctmgr_edit.h): the input, split into words on
// white space, is what follows the entity on the command line. For every entity it goes through
// ParseListSpec and, when that parses, RenderAccountingListing over a small database; for every
// verb (add, modify, delete) and entity that sacctmgr edits (account, user, QOS) through
// WorkOutEdit. A refused list has a message; a refused or empty edit says so and exits 1; a change
// worked out (exit 0) is applied to the database and checked against its rules as gantryd does
// before it commits (state::CheckAccounting: kept, or refused with a message; GANTRY_FUZZ_VERBOSE
// prints the refusals, changes sacctmgr could have refused itself); a kept one lists again.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/accounting.pb.h"
#include "slurm/sacctmgr_edit.h"
#include "slurm/sacctmgr_list.h"
#include "slurm/sacctmgr_table.h"
#include "state/accounting.h"
#include "text/ascii.h"

namespace {

using gantry::Result;
using gantry::slurm::AccountingCluster;
using gantry::slurm::Edit;
using gantry::slurm::EditVerb;
using gantry::slurm::Entity;
using gantry::slurm::ListSpec;
using gantry::slurm::TableStyle;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

constexpr char kCluster[] = "fuzz";

// Accounts prod and research under root, users alice (research) and bob (prod, on partitions a4
// and high), QOS normal and high.
const gantry::v1::AccountingDb& SampleDb() {
  static const gantry::v1::AccountingDb db = [] {
    gantry::state::AccountingDb state;
    gantry::state::ApplyAccountingChange(gantry::state::DefaultAccounting(), &state);
    gantry::v1::AccountingChange change;
    gantry::v1::Qos* high = change.add_qos();
    high->set_id(2);
    high->set_name("high");
    high->set_priority(100);
    high->set_usage_factor(2.0);
    uint32_t id = static_cast<uint32_t>(state.associations.size());
    auto association = [&](const char* account, const char* user, const char* partition) {
      gantry::v1::Association* a = change.add_associations();
      a->set_id(++id);
      a->set_account(account);
      a->set_user(user);
      a->set_partition(partition);
      a->set_shares(1);
      a->add_qos("normal");
      a->add_qos("high");
    };
    for (const char* name : {"prod", "research"}) {
      gantry::v1::Account* a = change.add_accounts();
      a->set_name(name);
      a->set_description(name);
      a->set_organization("fuzz");
      a->set_parent("root");
      association(name, "", "");
    }
    gantry::v1::AccountingUser* alice = change.add_users();
    alice->set_name("alice");
    alice->set_default_account("research");
    association("research", "alice", "");
    gantry::v1::AccountingUser* bob = change.add_users();
    bob->set_name("bob");
    bob->set_default_account("prod");
    bob->set_admin_level(gantry::state::kAdminOperator);
    association("prod", "bob", "a4");
    association("prod", "bob", "high");
    gantry::state::ApplyAccountingChange(change, &state);
    Check(gantry::state::CheckAccounting(state).ok());
    return gantry::state::ToProto(state);
  }();
  return db;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && gantry::text::IsAsciiSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !gantry::text::IsAsciiSpace(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

void CheckListing(Entity entity, const ListSpec& spec, const gantry::v1::AccountingDb& db) {
  const AccountingCluster cluster{kCluster, "127.0.0.1", "6817"};
  for (const TableStyle style : {TableStyle::kAligned, TableStyle::kParsable2}) {
    Result<std::string> listing =
        gantry::slurm::RenderAccountingListing(entity, spec, db, cluster, spec.with_assoc, style,
                                               /*no_header=*/style == TableStyle::kParsable2);
    if (!listing.ok()) Check(!listing.status().message().empty());
  }
}

void CheckEdit(EditVerb verb, Entity entity, const std::vector<std::string>& words) {
  const Edit edit = gantry::slurm::WorkOutEdit(verb, entity, words, SampleDb(), kCluster);
  if (edit.nothing) {
    Check(edit.exit_code == 1);
    Check(!edit.out.empty());
  }
  if (edit.exit_code != 0) {
    Check(!edit.out.empty() || !edit.err.empty());
    return;
  }
  gantry::state::AccountingDb next = gantry::state::FromProto(SampleDb());
  gantry::state::ApplyAccountingChange(edit.change, &next);
  const gantry::Status rules = gantry::state::CheckAccounting(next);
  if (std::getenv("GANTRY_FUZZ_VERBOSE") != nullptr && !rules.ok()) {
    std::fprintf(stderr, "verb %d entity %d: %s\n", static_cast<int>(verb),
                 static_cast<int>(entity), rules.ToString().c_str());
  }
  if (!rules.ok()) {
    Check(!rules.message().empty());  // gantryd refuses the change with this message
    return;
  }
  CheckListing(Entity::kAssociation, ListSpec(), gantry::state::ToProto(next));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> words =
      Words(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const Entity entity :
       {Entity::kAccount, Entity::kUser, Entity::kQos, Entity::kAssociation, Entity::kCluster}) {
    Result<ListSpec> spec = gantry::slurm::ParseListSpec(entity, words);
    if (!spec.ok()) {
      Check(!spec.status().message().empty());
      continue;
    }
    for (const gantry::v1::Association& a : SampleDb().associations()) (void)spec->Matches(a);
    CheckListing(entity, *spec, SampleDb());
  }
  for (const EditVerb verb : {EditVerb::kAdd, EditVerb::kModify, EditVerb::kDelete}) {
    for (const Entity entity : {Entity::kAccount, Entity::kUser, Entity::kQos}) {
      CheckEdit(verb, entity, words);
    }
  }
  return 0;
}
