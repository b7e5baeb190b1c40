// What only the PostgreSQL store does: its lock, its marker table, its connection errors.
#include "store/postgres_store.h"

#include <pwd.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres_test_server.h"
#include "store/store_test_util.h"

namespace gantry::store {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT(google-build-using-namespace): the store test helpers

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<std::string> server = PostgresServer();
    if (!server) GTEST_SKIP() << "no PostgreSQL server for the tests (GANTRY_TEST_POSTGRES_FILE)";
    database_.emplace(*server);
  }
  std::optional<TestDatabase> database_;
};

TEST_F(PostgresStoreTest, ASecondControllerOnTheSameDatabaseIsRefused) {
  auto first = OpenPostgresStore(database_->Conninfo());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = OpenPostgresStore(database_->Conninfo());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("in use by another controller"));
  first->reset();  // the lock goes with the first store's session
  auto third = OpenPostgresStore(database_->Conninfo());
  EXPECT_TRUE(third.ok()) << third.status().ToString();
}

TEST_F(PostgresStoreTest, ADatabaseWithOtherTablesIsLeftAlone) {
  ASSERT_TRUE(database_->Sql("CREATE TABLE payroll (name TEXT)"));
  auto store = OpenPostgresStore(database_->Conninfo());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("not a Gantry store"));
}

TEST_F(PostgresStoreTest, AStoreFromANewerSchemaVersionIsRefused) {
  {
    auto store = OpenPostgresStore(database_->Conninfo());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    MustAppend(**store, {{"k", "v"}});
  }
  ASSERT_TRUE(database_->Sql("UPDATE gantry_store SET schema_version = 99"));
  auto store = OpenPostgresStore(database_->Conninfo());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("schema version 99"));
}

TEST_F(PostgresStoreTest, BinaryPayloadsAndLargeSnapshotsRoundTrip) {
  auto store = OpenPostgresStore(database_->Conninfo());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::string binary(70000, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 7);
  MustAppend(**store, {{"bytes", binary}});
  ASSERT_TRUE((*store)->SaveSnapshot({1, binary + binary}).ok());
  auto snapshot = (*store)->LatestSnapshot();
  ASSERT_TRUE(snapshot.ok() && snapshot->has_value());
  EXPECT_EQ((*snapshot)->payload, binary + binary);
  ASSERT_TRUE((*store)->Put("blob", binary).ok());
  EXPECT_EQ(*(*store)->Get("blob"), std::optional<std::string>(binary));
}

// The server ends the store's session (a restart, a failover, a network cut found by the
// keepalives): the next commit connects again, takes the lock again and goes on; nothing
// committed before is lost.
TEST_F(PostgresStoreTest, ASessionLostBetweenCommitsIsMadeAgain) {
  auto store = OpenPostgresStore(database_->Conninfo());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  MustAppend(**store, {{"k", "one"}});
  const std::string kill_others =
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid()";
  ASSERT_TRUE(database_->Sql(kill_others));
  MustAppend(**store, {{"k", "two"}});
  std::vector<std::string> payloads;
  ASSERT_TRUE((*store)
                  ->ReadFrom(0,
                             [&](const Record& r) {
                               payloads.push_back(r.payload);
                               return Status::Ok();
                             })
                  .ok());
  EXPECT_EQ(payloads, (std::vector<std::string>{"one", "two"}));
  // Its lock came back with the session: a second controller is still refused.
  auto second = OpenPostgresStore(database_->Conninfo());
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("in use by another controller"));
}

// The tests' server runs on this host: gantryd watches its disk as it does SQLite's (the free
// space of the data directory's filesystem), so a full disk refuses new work instead of failing
// a commit.
TEST_F(PostgresStoreTest, ALocalServersDiskIsWatched) {
  auto store = OpenPostgresStore(database_->Conninfo());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const std::optional<uint64_t> free = (*store)->FreeBytes();
  ASSERT_TRUE(free.has_value());
  EXPECT_GT(*free, 0u);
}

// A tablespace on a tmpfs of `mib` MiB, for a disk that fills: needs root (to mount) and a
// server that runs as the `postgres` user (tests/store/postgres.sh as root). ok() false
// otherwise.
class SmallTablespace {
 public:
  SmallTablespace(std::string server, int mib) : server_(std::move(server)) {
    const passwd* pg = getpwnam("postgres");
    char dir[] = "/tmp/gantry-pg-small-XXXXXX";
    if (geteuid() != 0 || pg == nullptr || mkdtemp(dir) == nullptr) return;
    dir_ = dir;
    const std::string options = "size=" + std::to_string(mib) +
                                "m,mode=0700,uid=" + std::to_string(pg->pw_uid) +
                                ",gid=" + std::to_string(pg->pw_gid);
    if (mount("tmpfs", dir, "tmpfs", 0, options.c_str()) != 0) return;
    mounted_ = true;
    name_ = "gantry_small_" + std::to_string(getpid());
    created_ = RunAdminSql(server_, "CREATE TABLESPACE " + name_ + " LOCATION '" + dir_ + "'");
  }
  ~SmallTablespace() {
    if (created_) RunAdminSql(server_, "DROP TABLESPACE " + name_);
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  bool ok() const { return created_; }
  const std::string& name() const { return name_; }

 private:
  std::string server_;
  std::string dir_;
  std::string name_;
  bool mounted_ = false;
  bool created_ = false;
};

// The server's disk fills (here a tablespace on a small tmpfs): the write that finds it full
// frees the store's reserve and goes through, and FreeBytes() says 0 from then on, so that
// gantryd refuses new work instead of failing a commit (and stopping); once there is room again
// the reserve is taken back.
TEST_F(PostgresStoreTest, AFullServerDiskReleasesTheReserveAndSaysSo) {
  SmallTablespace small(*PostgresServer(), 24);
  if (!small.ok()) GTEST_SKIP() << "needs root and a server running as postgres";
  {
    TestDatabase database(*PostgresServer(), "TABLESPACE " + small.name());
    PostgresStoreOptions options;
    options.reserve_bytes = 4 << 20;
    options.reserve_retry = std::chrono::milliseconds(0);
    auto store = OpenPostgresStore(database.Conninfo(), options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_NE((*store)->FreeBytes(), std::optional<uint64_t>(0));
    // Something else on that disk, that the test frees later.
    ASSERT_TRUE(database.Sql(
        "CREATE TABLE ballast (b BYTEA); ALTER TABLE ballast ALTER COLUMN b SET STORAGE EXTERNAL;"
        "INSERT INTO ballast SELECT decode(repeat('00', 1048576), 'hex') "
        "FROM generate_series(1, 6)"));
    std::string payload(1 << 20, '\0');  // incompressible: TOAST would shrink repeated bytes
    uint64_t state = 88172645463325252u;
    for (char& c : payload) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      c = static_cast<char>(state);
    }
    int appended = 0;
    while ((*store)->FreeBytes() != std::optional<uint64_t>(0)) {
      ASSERT_LT(appended, 40) << "the disk never filled";
      Result<std::vector<uint64_t>> seqs = (*store)->Append({{"k", payload}});
      ASSERT_TRUE(seqs.ok()) << "append " << appended << ": " << seqs.status().ToString();
      ++appended;
    }
    EXPECT_GT(appended, 1);
    // Room again: the reserve comes back at the next write, and so does FreeBytes.
    ASSERT_TRUE(database.Sql("DROP TABLE ballast"));
    MustAppend(**store, {{"k", "small"}});
    EXPECT_NE((*store)->FreeBytes(), std::optional<uint64_t>(0));
    int read = 0;
    ASSERT_TRUE((*store)
                    ->ReadFrom(0,
                               [&](const Record&) {
                                 ++read;
                                 return Status::Ok();
                               })
                    .ok());
    EXPECT_EQ(read, appended + 1);  // nothing written was lost
  }
}

TEST(PostgresStoreSettingsTest, BadSettingsAndNoServerAreErrorsNamingTheDatabase) {
  auto bad = OpenPostgresStore("host=127.0.0.1 nonsense=1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("nonsense"));
  // Port 1 on loopback: nothing listens there.
  auto none = OpenPostgresStore("host=127.0.0.1 port=1 dbname=acct password=secret");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(none.status().message(), HasSubstr("acct"));
  EXPECT_THAT(none.status().message(), ::testing::Not(HasSubstr("secret")));
}

}  // namespace
}  // namespace gantry::store
