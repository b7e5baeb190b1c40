#include "ctld/config.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gantry::ctld {
namespace {

spec::EffectiveConfig ConfigWith(std::vector<std::pair<std::string, std::string>> settings) {
  spec::EffectiveConfig config;
  config.cluster_name = "acct";
  for (auto& [key, value] : settings) config.settings.emplace_back(key, value);
  return config;
}

TEST(ControllerConfigTest, TheStoreIsSqliteUnlessPostgresqlIsAskedFor) {
  Result<ControllerConfig> sqlite = ControllerConfigFromSpec(ConfigWith({}));
  ASSERT_TRUE(sqlite.ok()) << sqlite.status().ToString();
  EXPECT_EQ(sqlite->store_conninfo, "");

  Result<ControllerConfig> defaults = ControllerConfigFromSpec(
      ConfigWith({{"AccountingStorageType", "accounting_storage/postgresql"}}));
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->store_conninfo,
            "host='localhost' port='5432' dbname='gantry_acct' sslmode='prefer'");

  Result<ControllerConfig> named = ControllerConfigFromSpec(
      ConfigWith({{"AccountingStorageType", "accounting_storage/postgresql"},
                  {"AccountingStorageHost", "db.example.org"},
                  {"AccountingStoragePort", "6543"},
                  {"AccountingStorageUser", "gantry"},
                  {"AccountingStoragePass", "it's \\secret"},
                  {"AccountingStorageParameters", "dbname=prod"}}));
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  // On another host the server must show a certificate the system trusts (review M8).
  EXPECT_EQ(named->store_conninfo,
            "host='db.example.org' port='6543' dbname='prod' sslmode='verify-full' "
            "user='gantry' password='it\\'s \\\\secret'");

  Result<ControllerConfig> relaxed = ControllerConfigFromSpec(
      ConfigWith({{"AccountingStorageType", "accounting_storage/postgresql"},
                  {"AccountingStorageHost", "db.example.org"},
                  {"AccountingStorageParameters", "sslmode=require,sslrootcert=/etc/db-ca.pem"}}));
  ASSERT_TRUE(relaxed.ok()) << relaxed.status().ToString();
  EXPECT_EQ(relaxed->store_conninfo,
            "host='db.example.org' port='5432' dbname='gantry_acct' sslmode='require' "
            "sslrootcert='/etc/db-ca.pem'");
}

TEST(ControllerConfigTest, JobAcctGatherFrequencyGivesTheTaskInterval) {
  const std::vector<std::pair<std::string, uint32_t>> cases = {
      {"", 30},      {"10", 10},       {"task=5", 5}, {"energy=60,task=2", 2},
      {"task=0", 0}, {"energy=60", 30}};
  for (const auto& [value, want] : cases) {
    Result<ControllerConfig> got = ControllerConfigFromSpec(ConfigWith(
        value.empty()
            ? std::vector<std::pair<std::string, std::string>>{}
            : std::vector<std::pair<std::string, std::string>>{{"JobAcctGatherFrequency", value}}));
    ASSERT_TRUE(got.ok()) << value << ": " << got.status().ToString();
    EXPECT_EQ(got->acct_gather_frequency_sec, want) << value;
  }
  Result<ControllerConfig> bad =
      ControllerConfigFromSpec(ConfigWith({{"JobAcctGatherFrequency", "task=often"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("JobAcctGatherFrequency=task=often"), std::string::npos);
}

TEST(ControllerConfigTest, AuthInfoCredExpireSetsTheRequeueDelay) {
  Result<ControllerConfig> plain = ControllerConfigFromSpec(ConfigWith({}));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->core.cred_expire_sec, 120u);  // Slurm's default
  Result<ControllerConfig> set =
      ControllerConfigFromSpec(ConfigWith({{"AuthInfo", "socket=/run/munge.sock,cred_expire=5"}}));
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->core.cred_expire_sec, 5u);
  for (const char* bad : {"cred_expire=4", "cred_expire=", "cred_expire=1m"}) {
    Result<ControllerConfig> refused = ControllerConfigFromSpec(ConfigWith({{"AuthInfo", bad}}));
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(),
              std::string("AuthInfo=") + bad +
                  ": cred_expire must be a whole number of seconds, at least 5");
  }
}

}  // namespace
}  // namespace gantry::ctld
