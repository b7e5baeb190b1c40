// sacctmgr's listings and changes against the reference cluster's accounting database: the
// listings equal what real sacctmgr printed there (tests/golden/cmd-anchor-sacctmgr-*.txt), and
// the changes print Slurm's texts (captured from the same cluster).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "slurm/sacctmgr_edit.h"
#include "slurm/sacctmgr_list.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using ::gantry::testing::ReadGolden;

// The anchor's database: accounts prod and research under root; alice in research and bob and
// root in prod, each on partitions a4 then high (so high is newer); QOS normal.
v1::AccountingDb AnchorDb() {
  v1::AccountingDb db;
  db.set_version(7);
  auto account = [&](const char* name, const char* descr, const char* org, const char* parent) {
    v1::Account* a = db.add_accounts();
    a->set_name(name);
    a->set_description(descr);
    a->set_organization(org);
    a->set_parent(parent);
  };
  account("prod", "prod", "anchor", "root");
  account("research", "research", "anchor", "root");
  account("root", "default root account", "root", "");
  auto user = [&](const char* name, const char* def, uint32_t admin) {
    v1::AccountingUser* u = db.add_users();
    u->set_name(name);
    u->set_default_account(def);
    u->set_admin_level(admin);
  };
  user("alice", "research", 0);
  user("bob", "prod", 0);
  user("root", "root", 2);
  auto assoc = [&](const char* acct, const char* user_name, const char* partition) {
    v1::Association* a = db.add_associations();
    a->set_id(static_cast<uint32_t>(db.associations_size()));
    a->set_account(acct);
    a->set_user(user_name);
    a->set_partition(partition);
    a->set_shares(1);
    a->add_qos("normal");
  };
  assoc("root", "", "");
  assoc("root", "root", "");
  assoc("prod", "", "");
  assoc("research", "", "");
  for (const char* partition : {"a4", "high"}) {
    assoc("prod", "bob", partition);
    assoc("prod", "root", partition);
    assoc("research", "alice", partition);
  }
  v1::Qos* normal = db.add_qos();
  normal->set_id(1);
  normal->set_name("normal");
  normal->set_description("Normal QOS default");
  normal->set_usage_factor(1.0);
  return db;
}

std::string List(Entity entity, const std::vector<std::string>& words = {}, bool with_assoc = false,
                 TableStyle style = TableStyle::kAligned) {
  Result<ListSpec> spec = ParseListSpec(entity, words);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  Result<std::string> out = RenderAccountingListing(
      entity, *spec, AnchorDb(), {"anchor", "127.0.0.1", "7810"}, with_assoc, style, false);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : "";
}

TEST(SacctmgrListTest, DefaultListingsMatchTheReference) {
  EXPECT_EQ(List(Entity::kAccount), ReadGolden("cmd-anchor-sacctmgr-list-account.txt"));
  EXPECT_EQ(List(Entity::kUser), ReadGolden("cmd-anchor-sacctmgr-list-user.txt"));
  EXPECT_EQ(List(Entity::kAssociation), ReadGolden("cmd-anchor-sacctmgr-list-assoc.txt"));
  EXPECT_EQ(List(Entity::kQos), ReadGolden("cmd-anchor-sacctmgr-show-qos.txt"));
  EXPECT_EQ(List(Entity::kCluster), ReadGolden("cmd-anchor-sacctmgr-list-cluster.txt"));
}

TEST(SacctmgrListTest, FormatsStylesAndConditions) {
  EXPECT_EQ(List(Entity::kAccount, {}, false, TableStyle::kParsable),
            "Account|Descr|Org|\nprod|prod|anchor|\nresearch|research|anchor|\n"
            "root|default root account|root|\n");
  EXPECT_EQ(List(Entity::kUser, {"root"}, true, TableStyle::kParsable2),
            "User|Def Acct|Admin|Cluster|Account|Partition|Share|Priority|MaxJobs|MaxNodes|"
            "MaxCPUs|MaxSubmit|MaxWall|MaxCPUMins|QOS|Def QOS\n"
            "root|root|Administrator|anchor|prod|high|1||||||||normal|\n"
            "root|root|Administrator|anchor|prod|a4|1||||||||normal|\n"
            "root|root|Administrator|anchor|root||1||||||||normal|\n");
  EXPECT_EQ(List(Entity::kAssociation, {"where", "user=alice", "format=account%20,user%-12,part"}),
            "             Account User          Partition \n"
            "-------------------- ------------ ---------- \n"
            "            research alice              high \n"
            "            research alice                a4 \n");
  EXPECT_EQ(List(Entity::kAssociation, {"tree", "format=cluster,account,user"}),
            "   Cluster Account                    User \n"
            "---------- -------------------- ---------- \n"
            "    anchor root                            \n"
            "    anchor  root                      root \n"
            "    anchor  prod                           \n"
            "    anchor   prod                      bob \n"
            "    anchor   prod                      bob \n"
            "    anchor   prod                     root \n"
            "    anchor   prod                     root \n"
            "    anchor  research                       \n"
            "    anchor   research                alice \n"
            "    anchor   research                alice \n");
  Result<ListSpec> bad = ParseListSpec(Entity::kUser, {"format=nosuchfield"});
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(RenderAccountingListing(Entity::kUser, *bad, AnchorDb(), {}, false,
                                    TableStyle::kAligned, false)
                .status()
                .message(),
            "Unknown field 'nosuchfield'");
}

TEST(SacctmgrEditTest, AddUserPrintsSlurmsTextAndInheritsTheAccountsQos) {
  const Edit e =
      WorkOutEdit(EditVerb::kAdd, Entity::kUser,
                  {"dave", "Account=research", "Partition=nosuchpart"}, AnchorDb(), "anchor");
  EXPECT_EQ(e.out,
            " Adding User(s)\n  dave\n Associations =\n"
            "  U = dave      A = research   C = anchor     P = nosuchpart\n"
            " Non Default Settings\n");
  ASSERT_EQ(e.change.users_size(), 1);
  EXPECT_EQ(e.change.users(0).default_account(), "research");
  ASSERT_EQ(e.change.associations_size(), 1);
  EXPECT_EQ(e.change.associations(0).id(), 11u);
  EXPECT_EQ(e.change.associations(0).qos(0), "normal");

  const Edit again =
      WorkOutEdit(EditVerb::kAdd, Entity::kUser, {"alice", "Account=research", "Partition=a4"},
                  AnchorDb(), "anchor");
  EXPECT_TRUE(again.nothing);
  EXPECT_EQ(again.out, " Nothing new added.\n");
  EXPECT_EQ(again.exit_code, 1);
}

TEST(SacctmgrEditTest, RefusalsUseSlurmsTexts) {
  struct Case {
    EditVerb verb;
    Entity entity;
    std::vector<std::string> words;
    std::string err;
  };
  const std::vector<Case> cases = {
      {EditVerb::kAdd, Entity::kUser, {}, " Need name of user to add.\n"},
      {EditVerb::kAdd,
       Entity::kUser,
       {"dave", "Account=nosuchaccount"},
       " This account 'nosuchaccount' doesn't exist.\n        Contact your admin to add this "
       "account.\n No associations or wckeys created.\n"},
      {EditVerb::kModify,
       Entity::kUser,
       {"alice", "set", "NoSuchField=1"},
       " Unknown option: NoSuchField=1\n Use keyword 'where' to modify condition\n"},
  };
  for (const Case& c : cases) {
    const Edit e = WorkOutEdit(c.verb, c.entity, c.words, AnchorDb(), "anchor");
    EXPECT_EQ(e.err, c.err);
    EXPECT_EQ(e.exit_code, 1);
    EXPECT_EQ(e.change.ByteSizeLong(), 0u);
  }
  EXPECT_EQ(WorkOutEdit(EditVerb::kDelete, Entity::kUser, {"nosuchuser"}, AnchorDb(), "anchor").out,
            " Nothing deleted\n");
  EXPECT_EQ(WorkOutEdit(EditVerb::kAdd, Entity::kAccount, {"research"}, AnchorDb(), "anchor").out,
            " Nothing new added.\n");
}

TEST(SacctmgrEditTest, AccountsTakeTheirParentsDefaults) {
  const Edit e = WorkOutEdit(EditVerb::kAdd, Entity::kAccount, {"childacct", "Parent=research"},
                             AnchorDb(), "anchor");
  EXPECT_EQ(e.out,
            " Adding Account(s)\n  childacct\n Settings\n  Description     = Account Name\n"
            "  Organization    = Parent/Account Name\n Associations\n"
            "  A = childacct  C = anchor    \n Settings\n  Parent        = research\n");
  ASSERT_EQ(e.change.accounts_size(), 1);
  EXPECT_EQ(e.change.accounts(0).description(), "childacct");
  EXPECT_EQ(e.change.accounts(0).organization(), "research");
  EXPECT_EQ(e.change.accounts(0).parent(), "research");

  const Edit top = WorkOutEdit(EditVerb::kAdd, Entity::kAccount, {"lab"}, AnchorDb(), "anchor");
  EXPECT_EQ(top.change.accounts(0).organization(), "lab");  // under root: its own name
}

// Captured on the reference cluster: research set Priority=100 (its users inherit it and are
// listed with it), bob 50, root 400.
TEST(SacctmgrEditTest, AssociationPriorityIsSetInheritedAndListed) {
  const Edit account = WorkOutEdit(EditVerb::kModify, Entity::kAccount,
                                   {"research", "set", "priority=100"}, AnchorDb(), "anchor");
  EXPECT_EQ(account.after,
            " Modified account associations...\n"
            "  C = anchor     A = research of root\n"
            "  C = anchor     A = research             U = alice     P = high\n"
            "  C = anchor     A = research             U = alice     P = a4\n");
  ASSERT_EQ(account.change.associations_size(), 1);
  EXPECT_EQ(account.change.associations(0).priority(), 100u);
  const Edit user = WorkOutEdit(EditVerb::kModify, Entity::kUser, {"bob", "set", "prio=50"},
                                AnchorDb(), "anchor");
  ASSERT_EQ(user.change.associations_size(), 2);
  EXPECT_EQ(user.change.associations(0).priority(), 50u);
  const Edit bad = WorkOutEdit(EditVerb::kModify, Entity::kUser, {"bob", "set", "priority=abc"},
                               AnchorDb(), "anchor");
  EXPECT_EQ(bad.err,
            "sacctmgr: error: Invalid value for Priority (abc)\n"
            " Unknown option: priority=abc\n"
            " Use keyword 'where' to modify condition\n");
  v1::AccountingDb db = AnchorDb();
  for (v1::Association& a : *db.mutable_associations()) {
    if (a.account() == "research" && a.user().empty()) a.set_priority(100);
    if (a.user() == "bob") a.set_priority(50);
    if (a.user() == "root") a.set_priority(400);
  }
  Result<ListSpec> spec =
      ParseListSpec(Entity::kAssociation, {"format=account,user,partition,priority"});
  ASSERT_TRUE(spec.ok());
  Result<std::string> out =
      RenderAccountingListing(Entity::kAssociation, *spec, db, {"anchor", "127.0.0.1", "7810"},
                              false, TableStyle::kAligned, false);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "   Account       User  Partition   Priority \n"
            "---------- ---------- ---------- ---------- \n"
            "      root                                  \n"
            "      root       root                   400 \n"
            "      prod                                  \n"
            "      prod        bob       high         50 \n"
            "      prod        bob         a4         50 \n"
            "      prod       root       high        400 \n"
            "      prod       root         a4        400 \n"
            "  research                              100 \n"
            "  research      alice       high        100 \n"
            "  research      alice         a4        100 \n");
}

TEST(SacctmgrEditTest, ModifyAndDeleteSayWhatTheyChanged) {
  const Edit fairshare = WorkOutEdit(EditVerb::kModify, Entity::kUser,
                                     {"bob", "set", "Fairshare=5"}, AnchorDb(), "anchor");
  EXPECT_EQ(fairshare.after,
            " Modified user associations...\n"
            "  C = anchor     A = prod                 U = bob       P = high\n"
            "  C = anchor     A = prod                 U = bob       P = a4\n");
  for (const v1::Association& a : fairshare.change.associations()) EXPECT_EQ(a.shares(), 5u);

  // The reference's QOS 'short' (limits.txt): added, then granted with QOS+=.
  const Edit qos = WorkOutEdit(EditVerb::kAdd, Entity::kQos,
                               {"short", "MaxWall=00:10:00", "Priority=100"}, AnchorDb(), "anchor");
  EXPECT_EQ(qos.out,
            " Adding QOS(s)\n  short\n Settings\n  Description    = short\n"
            "  MaxWall                  = 00:10:00\n  Priority                 = 100\n");
  EXPECT_EQ(qos.change.qos(0).max_wall_min(), 10u);
  const Edit per_user =
      WorkOutEdit(EditVerb::kModify, Entity::kQos,
                  {"normal", "set", "MaxJobsPU=2", "MaxSubmitJobsPerUser=5"}, AnchorDb(), "anchor");
  ASSERT_EQ(per_user.change.qos_size(), 1);
  EXPECT_EQ(per_user.change.qos(0).max_jobs_per_user(), 2u);
  EXPECT_EQ(per_user.change.qos(0).max_submit_jobs_per_user(), 5u);
  const Edit grant = WorkOutEdit(EditVerb::kModify, Entity::kUser, {"alice", "set", "QOS+=short"},
                                 AnchorDb(), "anchor");
  ASSERT_EQ(grant.change.associations_size(), 2);
  EXPECT_EQ(grant.change.associations(0).qos_size(), 2);  // normal and short
  const Edit take = WorkOutEdit(EditVerb::kModify, Entity::kUser, {"alice", "set", "QOS-=normal"},
                                AnchorDb(), "anchor");
  EXPECT_EQ(take.change.associations(0).qos_size(), 0);

  const Edit tres =
      WorkOutEdit(EditVerb::kModify, Entity::kAccount,
                  {"research", "set", "GrpTRES=gres/gpu=8,cpu=64"}, AnchorDb(), "anchor");
  EXPECT_EQ(tres.after,
            " Modified account associations...\n  C = anchor     A = research of root\n");
  ASSERT_EQ(tres.change.associations_size(), 1);
  EXPECT_EQ(tres.change.associations(0).grp_tres(), "cpu=64,gres/gpu=8");
  const Edit bad = WorkOutEdit(EditVerb::kModify, Entity::kUser, {"bob", "set", "MaxJobs=x"},
                               AnchorDb(), "anchor");
  EXPECT_EQ(bad.err, " Bad MaxJobs value: x\n");

  const Edit admin =
      WorkOutEdit(EditVerb::kModify, Entity::kUser,
                  {"where", "name=bob", "set", "AdminLevel=Operator"}, AnchorDb(), "anchor");
  EXPECT_EQ(admin.after, " Modified users...\n  bob\n");
  EXPECT_EQ(admin.change.users(0).admin_level(), 1u);

  // Deleting research takes alice's associations: she is left with none and goes too.
  const Edit gone =
      WorkOutEdit(EditVerb::kDelete, Entity::kAccount, {"research"}, AnchorDb(), "anchor");
  EXPECT_EQ(gone.after, " Deleting accounts...\n  research\n");
  EXPECT_EQ(gone.change.removed_associations_size(), 3);
  ASSERT_EQ(gone.change.removed_users_size(), 1);
  EXPECT_EQ(gone.change.removed_users(0), "alice");
}

}  // namespace
}  // namespace gantry::slurm
