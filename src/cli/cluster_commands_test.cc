// `gantry cluster ...`, `up`, `down`, `status`, `env` through RunGantry, with GANTRY_HOME in a
// temporary folder and fake daemons (src/cluster/testing/fake_daemons.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/gantry_command.h"
#include "cluster/environment.h"
#include "cluster/testing/fake_daemons.h"
#include "cluster/testing/specs.h"

namespace gantry::cli {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int rc = -1;
  std::string out;
  std::string err;
};

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class ClusterCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-cli-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = cluster::NormalizePath(pattern);
    home_ = root_ + "/home";
    setenv("GANTRY_HOME", home_.c_str(), 1);
    unsetenv("GANTRY_STATE_DIR");
    cluster::testing::WriteFakeDaemons(root_ + "/bin");
    setenv("GANTRY_BIN_DIR", (root_ + "/bin").c_str(), 1);
    WriteSpec("t2.json", cluster::testing::SmallSpecText(2));
  }
  void TearDown() override {
    for (const std::string& dir : {home_ + "/t", home_ + "/u"}) {
      if (fs::exists(dir + "/spec.json")) Gantry({"down", "--state-dir", dir});
    }
    controller_.reset();
    cluster::testing::KillProcessesMentioning(root_);
    unsetenv("GANTRY_HOME");
    unsetenv("GANTRY_BIN_DIR");
    unsetenv("GANTRY_STATE_DIR");
    fs::remove_all(root_);
  }

  std::string WriteSpec(const std::string& name, const std::string& text) {
    std::string path = root_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  static Outcome Gantry(const std::vector<std::string>& args, const std::string& input = "") {
    std::istringstream in(input);
    std::ostringstream out;
    std::ostringstream err;
    Outcome r;
    r.rc = RunGantry(args, in, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
  }

  std::string root_, home_;
  std::unique_ptr<cluster::testing::FakeController> controller_;
};

TEST_F(ClusterCommandsTest, CreateGetListAndDelete) {
  Outcome r = Gantry({"cluster", "create", "--spec", root_ + "/t2.json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string dir = home_ + "/t";
  EXPECT_EQ(r.out, "created cluster t in " + dir +
                       "\n"
                       "  spec.json        the spec (canonical JSON)\n"
                       "  gantry.conf      for the commands (GANTRY_CONF)\n"
                       "  cluster.key      the cluster's secret key (mode 0600)\n"
                       "  run/ logs/       pid files and daemon logs\n"
                       "  spool/ home/     agent spools and the shared home directory\n"
                       "login pool         login: t-login-0 (n2-standard-2)\n"
                       "pool cpu           t-cpu-[0-1]: 2 nodes, n2-standard-4, 4 CPUs, 16384 MiB\n"
                       "partition cpu      t-cpu-[0-1] (pools: cpu)\n"
                       "partition debug    t-cpu-[0-1] (pools: cpu)\n"
                       "default partition  cpu\n"
                       "start it with: gantry up --state-dir " +
                       dir + "\n");
  EXPECT_TRUE(fs::exists(dir + "/cluster.key"));

  r = Gantry({"cluster", "create", "--spec", root_ + "/t2.json"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.err.starts_with("gantry: " + dir + " already holds a cluster")) << r.err;

  r = Gantry({"cluster", "get"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("cluster            t\n"
                        "state dir          " +
                        dir +
                        "\n"
                        "status             stopped\n"
                        "login pool         login: t-login-0 (n2-standard-2)\n"))
      << r.out;

  r = Gantry({"cluster", "get", "--format=json"});
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, Read(dir + "/spec.json"));

  ASSERT_EQ(Gantry({"cluster", "create", "--spec",
                    WriteSpec("u.json", cluster::testing::SmallSpecText(3, "u"))})
                .rc,
            0);
  r = Gantry({"cluster", "list"});
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(r.out,
            "NAME  STATUS   NODES  STATE DIR\n"
            "t     stopped  2      " +
                dir + "\nu     stopped  3      " + home_ + "/u\n");

  // Two clusters: commands without --state-dir ask which.
  r = Gantry({"cluster", "get"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "gantry: several clusters under " + home_ +
                       "; pick one with --state-dir DIR (or set GANTRY_STATE_DIR):\n  " + dir +
                       "\n  " + home_ + "/u\n");
  setenv("GANTRY_STATE_DIR", (home_ + "/u").c_str(), 1);
  r = Gantry({"cluster", "get"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_TRUE(r.out.starts_with("cluster            u\n")) << r.out;
  unsetenv("GANTRY_STATE_DIR");

  r = Gantry({"cluster", "delete", "--state-dir", dir}, "n\n");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "Delete cluster t and all its state in " + dir + "? [y/N] not deleted\n");
  EXPECT_TRUE(fs::exists(dir));
  r = Gantry({"cluster", "delete", "--state-dir", dir}, "");  // EOF answers no
  EXPECT_EQ(r.rc, 1);
  r = Gantry({"cluster", "delete", "--state-dir", dir}, " Yes\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "deleted cluster t (" + dir + ")\n");
  EXPECT_FALSE(fs::exists(dir));
  r = Gantry({"cluster", "delete", "--yes"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(fs::exists(home_ + "/u"));
  r = Gantry({"cluster", "list"});
  EXPECT_EQ(r.out, "no clusters under " + home_ + "\n");
}

TEST_F(ClusterCommandsTest, CreateWithAnInvalidSpecPrintsEveryProblemAndCreatesNothing) {
  const std::string bad =
      WriteSpec("bad.json", R"({"display_name": "Bad_Name", "node_pools": []})");
  Outcome r = Gantry({"cluster", "create", "--spec", bad, "--state-dir", root_ + "/c"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  Outcome validate = Gantry({"spec", "validate", bad});
  EXPECT_EQ(r.err, validate.err);
  EXPECT_FALSE(fs::exists(root_ + "/c"));
}

TEST_F(ClusterCommandsTest, UpdateRefusesForbiddenChangesAndWritesAllowedOnes) {
  const std::string dir = home_ + "/t";
  ASSERT_EQ(Gantry({"cluster", "create", "--spec", root_ + "/t2.json"}).rc, 0);
  const std::string before = Read(dir + "/spec.json");

  std::string other_home = cluster::testing::SmallSpecText(2);
  other_home.replace(other_home.find("\"/home\""), 7, "\"/srv/home\"");
  Outcome r = Gantry({"cluster", "update", "--spec", WriteSpec("refused.json", other_home)});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("orchestrator_spec.slurm_spec.home_directory_storage"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "gantry: 1 of 1 change refused; the cluster is unchanged\n");
  EXPECT_EQ(Read(dir + "/spec.json"), before);

  r = Gantry({"cluster", "update", "--spec", root_ + "/t2.json"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "no changes\n");

  r = Gantry(
      {"cluster", "update", "--spec", WriteSpec("t3.json", cluster::testing::SmallSpecText(3))});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("updated " + dir +
                       "/spec.json (2 changes)\n"
                       "gantryd is not running: the new spec takes effect at the next gantry up\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(Read(dir + "/spec.json"), before);
  EXPECT_EQ(Gantry({"cluster", "get"}).out.find("t-cpu-[0-2]: 3 nodes") != std::string::npos, true);
}

TEST_F(ClusterCommandsTest, UpStatusDownWithFakeDaemons) {
  const std::string dir = home_ + "/t";
  ASSERT_EQ(Gantry({"cluster", "create", "--spec", root_ + "/t2.json"}).rc, 0);
  Outcome r = Gantry({"status"});
  EXPECT_EQ(r.rc, 3);
  EXPECT_EQ(r.out,
            "gantryd        stopped\n"
            "agent t-cpu-0  stopped\n"
            "agent t-cpu-1  stopped\n"
            "gantry-restd   stopped\n");

  controller_ = std::make_unique<cluster::testing::FakeController>(dir);
  ASSERT_TRUE(controller_->ok());
  r = Gantry({"up", "--spec", root_ + "/t2.json"});  // the same spec: no complaint
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_TRUE(r.out.starts_with("gantryd  started  pid ")) << r.out;
  EXPECT_TRUE(
      r.out.ends_with("cluster t is up (2 nodes); for sbatch, squeue, sinfo: eval "
                      "\"$(gantry env --state-dir " +
                      dir + ")\"\n"))
      << r.out;

  r = Gantry({"status"});
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string addr = Read(dir + "/run/gantryd.addr");
  std::istringstream lines(r.out);
  std::string gantryd_line;
  std::string agent0;
  std::string agent1;
  std::getline(lines, gantryd_line);
  std::getline(lines, agent0);
  std::getline(lines, agent1);
  EXPECT_TRUE(gantryd_line.starts_with("gantryd        running  pid ")) << gantryd_line;
  EXPECT_TRUE(gantryd_line.ends_with("  " + addr.substr(0, addr.size() - 1))) << gantryd_line;
  EXPECT_TRUE(agent0.starts_with("agent t-cpu-0  running  pid ")) << agent0;
  EXPECT_TRUE(agent0.ends_with("  IDLE")) << agent0;
  EXPECT_TRUE(agent1.starts_with("agent t-cpu-1  running  pid ")) << agent1;
  std::string restd;
  std::getline(lines, restd);
  EXPECT_TRUE(restd.starts_with("gantry-restd   running  pid ")) << restd;
  const std::string url = Read(dir + "/run/restd.url");
  EXPECT_TRUE(restd.ends_with("  " + url.substr(0, url.size() - 1))) << restd;

  r = Gantry({"cluster", "list"});
  EXPECT_NE(r.out.find("t     running  2      " + dir), std::string::npos) << r.out;

  r = Gantry({"up"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.find("started"), std::string::npos) << r.out;

  // A different spec for the same cluster is not silently applied.
  r = Gantry({"up", "--spec", WriteSpec("t3.json", cluster::testing::SmallSpecText(3))});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "gantry: " + dir +
                       " holds cluster t with a different spec; change it with: gantry cluster "
                       "update --spec " +
                       root_ + "/t3.json --state-dir " + dir + "\n");

  r = Gantry({"down"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.out.ends_with("cluster stopped; its state stays in " + dir + "\n")) << r.out;
  EXPECT_EQ(Gantry({"status"}).rc, 3);
  r = Gantry({"down"});
  EXPECT_EQ(r.out, "nothing was running in " + dir + "\n");
}

TEST_F(ClusterCommandsTest, UpFailsWithTheDaemonsLog) {
  const std::string dir = home_ + "/t";
  ASSERT_EQ(Gantry({"cluster", "create", "--spec", root_ + "/t2.json"}).rc, 0);
  std::ofstream(dir + "/fake-gantryd-fails") << "";
  Outcome r = Gantry({"up"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.err.starts_with("gantry: gantryd (pid ")) << r.err;
  EXPECT_TRUE(r.err.ends_with("\nfatal: cannot open " + dir + "/state.db\n")) << r.err;
}

TEST_F(ClusterCommandsTest, EnvPointsTheCommandsAtTheCluster) {
  const std::string dir = home_ + "/t";
  ASSERT_EQ(Gantry({"cluster", "create", "--spec", root_ + "/t2.json"}).rc, 0);
  const std::string bin = cluster::Environment::FromProcess().self_dir;
  const std::string saved_path = getenv("PATH");
  setenv("PATH", "/usr/bin:/bin", 1);
  Outcome r = Gantry({"env"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "export GANTRY_CONF=" + dir + "/gantry.conf\nexport PATH=" + bin +
                       ":\"$PATH\"\nexport GANTRY_STATE_DIR=" + dir + "\n");
  setenv("PATH", (bin + ":/usr/bin").c_str(), 1);
  r = Gantry({"env"});
  EXPECT_EQ(r.out,
            "export GANTRY_CONF=" + dir + "/gantry.conf\nexport GANTRY_STATE_DIR=" + dir + "\n");
  r = Gantry({"env", "--unset"});
  EXPECT_EQ(r.out,
            "unset GANTRY_CONF GANTRY_STATE_DIR GANTRY_REST_URL GANTRY_REST_CA "
            "GANTRY_METRICS_URL\nexport PATH=/usr/bin\n");
  setenv("PATH", saved_path.c_str(), 1);
}

TEST_F(ClusterCommandsTest, UsageErrors) {
  const struct {
    std::vector<std::string> args;
    std::string first_line;
  } cases[] = {
      {{"cluster"}, "usage: gantry cluster create --spec FILE [--state-dir DIR]"},
      {{"cluster", "frob"}, "gantry: unknown cluster command \"frob\""},
      {{"cluster", "create"}, "gantry: cluster create needs --spec FILE"},
      {{"cluster", "create", "--spec"}, "gantry: --spec needs a value"},
      {{"cluster", "list", "extra"}, "gantry: unexpected argument \"extra\""},
      {{"cluster", "get", "--format", "yaml"},
       "gantry: --format: unknown format \"yaml\" (known: text, json)"},
      {{"up", "--bogus"}, "gantry: unknown option --bogus"},
      {{"down", "--yes"}, "gantry: unknown option --yes"},
      {{"env", "--unset=1"}, "gantry: --unset takes no value"},
  };
  for (const auto& c : cases) {
    const Outcome r = Gantry(c.args);
    EXPECT_EQ(r.rc, 2) << c.args[0];
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), c.first_line);
  }
  const Outcome no_cluster = Gantry({"status"});
  EXPECT_EQ(no_cluster.rc, 1);
  EXPECT_EQ(no_cluster.err, "gantry: no cluster under " + home_ +
                                "; create one with: gantry cluster create --spec FILE (or pass "
                                "--state-dir DIR)\n");
}

}  // namespace
}  // namespace gantry::cli
