#include "state/accounting.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace gantry::state {
namespace {

AccountingDb Default() {
  AccountingDb db;
  ApplyAccountingChange(DefaultAccounting(), &db);
  return db;
}

TEST(AccountingTest, ANewClusterKeepsTheRules) {
  const AccountingDb db = Default();
  EXPECT_TRUE(CheckAccounting(db).ok()) << CheckAccounting(db).ToString();
  EXPECT_EQ(db.version, 1u);
  EXPECT_EQ(db.users.at("root").admin_level(), kAdminAdministrator);
  const v1::Association* a = FindJobAssociation(db, "root", "root", "any");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(DefaultQosOf(*a), "normal");
  EXPECT_EQ(FindJobAssociation(db, "root", "other", "any"), nullptr);
  EXPECT_EQ(FromProto(ToProto(db)).associations.size(), db.associations.size());
}

TEST(AccountingTest, ChangesThatBreakARuleAreNamed) {
  struct Case {
    std::string rule;
    std::function<void(v1::AccountingChange*)> change;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"parent exists",
       [](v1::AccountingChange* c) {
         v1::Account* a = c->add_accounts();
         a->set_name("orphan");
         a->set_parent("nosuch");
       },
       "account orphan: parent account nosuch does not exist"},
      {"every account has an association",
       [](v1::AccountingChange* c) {
         v1::Account* a = c->add_accounts();
         a->set_name("lonely");
         a->set_parent("root");
       },
       "account lonely has no association"},
      {"default account is an association's",
       [](v1::AccountingChange* c) {
         v1::AccountingUser* u = c->add_users();
         u->set_name("root");
         u->set_default_account("elsewhere");
       },
       "user root: default account elsewhere is not one of its associations"},
      {"QOS exists",
       [](v1::AccountingChange* c) {
         v1::Association* a = c->add_associations();
         a->set_id(2);
         a->set_account("root");
         a->set_user("root");
         a->add_qos("gold");
       },
       "association 2 (account root, user root): QOS gold does not exist"},
      {"normal stays", [](v1::AccountingChange* c) { c->add_removed_qos("normal"); },
       "QOS normal must exist"},
      {"root stays", [](v1::AccountingChange* c) { c->add_removed_accounts("root"); },
       "account root must exist"},
      {"no duplicate association",
       [](v1::AccountingChange* c) {
         v1::Association* a = c->add_associations();
         a->set_id(9);
         a->set_account("root");
         a->set_user("root");
       },
       "association 9 (account root, user root) exists twice"},
  };
  for (const Case& c : cases) {
    AccountingDb db = Default();
    v1::AccountingChange change;
    c.change(&change);
    ApplyAccountingChange(change, &db);
    EXPECT_EQ(CheckAccounting(db).message(), c.error) << c.rule;
  }
}

}  // namespace
}  // namespace gantry::state
