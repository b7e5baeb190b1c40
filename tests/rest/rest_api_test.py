"""gantry-restd against a running local cluster, as two unix users and root.

usage: rest_api_test.py STATE_DIR WORK_DIR USER1 USER2
The cluster (gantry up) runs gantry-restd; tokens come from `scontrol token` run as each user.
Every answer is validated against slurmrestd's own v0.0.42 OpenAPI document (rest_client.py),
and at the end every route of the daemon's table must have been called and checked.
"""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rest_client as rc  # noqa: E402

STATE, WORK, USER1, USER2 = sys.argv[1:5]
del sys.argv[1:5]
V = "/slurm/v0.0.42"
DB = "/slurmdb/v0.0.42"


def read(path):
    with open(path) as f:
        return f.read().strip()


URL = read(os.path.join(STATE, "run", "restd.url"))
CA = os.path.join(STATE, "tls", "ca.crt")
SOCKET = "unix:" + os.path.join(STATE, "run", "restd.sock")


def as_user(user, *argv):
    cmd = list(argv) if user == "root" else ["runuser", "-u", user, "--", "env",
                                             "PATH=" + os.environ["PATH"],
                                             "GANTRY_CONF=" + os.environ["GANTRY_CONF"]] + list(argv)
    return subprocess.run(cmd, capture_output=True, text=True)


def token(user, *extra):
    out = as_user(user, "scontrol", "token", *extra)
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert line.startswith("SLURM_JWT="), line
    return line[len("SLURM_JWT="):]


def client(user=None, base=URL, **kw):
    return rc.Client(base, token=token(user) if user else None, cafile=CA, **kw)


def job_desc(user, script, **extra):
    desc = {"script": script, "environment": ["PATH=/usr/bin:/bin", "TRAIN_STEPS=3"],
            "current_working_directory": os.path.join(WORK, user), "name": "train"}
    desc.update(extra)
    return {"job": desc}


def wait_job(c, job_id, states, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        status, doc = c.get("%s/job/%d" % (V, job_id))
        assert status == 200, doc["errors"]
        current = doc["jobs"][0]["job_state"]
        if any(s in current for s in states) and "COMPLETING" not in current:
            return doc["jobs"][0]
        time.sleep(0.3)
    raise AssertionError("job %d never reached %s (last %s)" % (job_id, states, current))


TRAIN = """#!/bin/bash
for step in $(seq 1 $TRAIN_STEPS); do echo "step $step loss 0.$((10 - step))"; done
echo "checkpoint" > ckpt-$SLURM_JOB_ID
"""


class Workflow(unittest.TestCase):
    """A workflow written for slurmrestd: submit with a token, poll, read the record."""

    def test_submit_poll_and_read_the_record(self):
        c = client(USER1)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, TRAIN, tasks=2, memory_per_cpu=100,
                                                         time_limit=5))
        self.assertEqual(status, 200, doc["errors"])
        job_id = doc["job_id"]
        self.assertEqual(doc["step_id"], "batch")
        job = wait_job(c, job_id, ["COMPLETED", "FAILED", "CANCELLED"])
        self.assertEqual(job["job_state"], ["COMPLETED"])
        self.assertEqual(job["user_name"], USER1)
        self.assertEqual(job["tasks"]["number"], 2)
        self.assertEqual(job["time_limit"], {"set": True, "infinite": False, "number": 5})
        self.assertEqual(job["exit_code"]["status"], ["SUCCESS"])
        out = read(os.path.join(WORK, USER1, "slurm-%d.out" % job_id))
        self.assertIn("step 3 loss 0.7", out)
        self.assertEqual(read(os.path.join(WORK, USER1, "ckpt-%d" % job_id)), "checkpoint")
        self.assertEqual(os.stat(os.path.join(WORK, USER1, "ckpt-%d" % job_id)).st_uid,
                         int(as_user("root", "id", "-u", USER1).stdout))
        # The accounting record, as sacct has it.
        status, doc = c.get("%s/job/%d" % (DB, job_id))
        self.assertEqual(status, 200, doc["errors"])
        record = doc["jobs"][0]
        self.assertEqual(record["job_id"], job_id)
        self.assertEqual(record["state"]["current"], ["COMPLETED"])
        self.assertEqual(record["user"], USER1)
        self.assertGreaterEqual(record["time"]["end"], record["time"]["start"])
        sacct = as_user(USER1, "sacct", "-j", str(job_id), "-X", "-n", "-P", "-o", "State")
        self.assertEqual(sacct.stdout.strip(), "COMPLETED")
        status, doc = c.get(DB + "/jobs?users=%s&state=COMPLETED" % USER1)
        self.assertIn(job_id, [j["job_id"] for j in doc["jobs"]])

    def test_cancel_through_delete(self):
        c = client(USER1)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\nsleep 300\n"))
        job_id = doc["job_id"]
        wait_job(c, job_id, ["RUNNING"])
        status, doc = c.delete("%s/job/%d" % (V, job_id))
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(doc["status"][0]["job_id"]["number"], job_id)
        job = wait_job(c, job_id, ["CANCELLED"])
        # squeue sees the same job the same way.
        self.assertEqual(as_user(USER1, "squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%T")
                         .stdout.strip(), "CANCELLED")
        self.assertEqual(job["job_state"], ["CANCELLED"])

    def test_update_hold_and_release(self):
        c = client(USER1)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\nsleep 1\n", hold=True))
        job_id = doc["job_id"]
        job = wait_job(c, job_id, ["PENDING"])
        self.assertTrue(job["hold"])
        status, doc = c.post("%s/job/%d" % (V, job_id), {"comment": "from rest", "time_limit": 3})
        self.assertEqual(status, 200, doc["errors"])
        show = as_user(USER1, "scontrol", "show", "job", str(job_id)).stdout
        self.assertIn("Comment=from rest", show)
        self.assertIn("TimeLimit=00:03:00", show)
        status, doc = c.post("%s/job/%d" % (V, job_id), {"hold": False})
        self.assertEqual(status, 200, doc["errors"])
        wait_job(c, job_id, ["COMPLETED"])

    def test_the_man_page_example(self):
        """slurmrestd(8)'s example submission (in the user's folder rather than /tmp/, where an
        earlier run's slurm-N.out of another user could be in the way)."""
        c = client(USER1)
        body = {"job": {"script": "#!/bin/bash\nsleep 1", "name": "ExampleJob",
                        "environment": ["PATH=/usr/bin/:/bin"],
                        "current_working_directory": os.path.join(WORK, USER1), "tasks": 2,
                        "memory_per_cpu": 100,
                        "time_limit": 240}}
        # The example gives time_limit as a bare number where the spec's schema has a
        # {set, infinite, number} struct: slurmrestd takes both, and so does Gantry.
        status, doc = c.post(V + "/job/submit", body)
        self.assertEqual(status, 200, doc["errors"])
        job = wait_job(c, doc["job_id"], ["COMPLETED", "FAILED"])
        self.assertEqual(job["name"], "ExampleJob")


def token_key():
    """The cluster's token key, as gantryd derives it (rpc/user_token.h)."""
    import hashlib
    import hmac
    cluster_key = bytes.fromhex(read(os.path.join(STATE, "cluster.key")))
    return hmac.new(cluster_key, b"gantry user token v1", hashlib.sha256).digest()


class Interop(unittest.TestCase):
    """Tokens are plain HS256 JWTs: a standard library (PyJWT, Debian's python3-jwt) reads
    scontrol's and makes ones gantryd accepts."""

    def setUp(self):
        try:
            import jwt  # noqa: F401
        except ImportError:
            self.skipTest("python3-jwt is not installed")

    def test_pyjwt_reads_scontrol_tokens(self):
        import jwt
        claims = jwt.decode(token(USER1, "lifespan=600"), token_key(), algorithms=["HS256"])
        self.assertEqual(claims["sun"], USER1)
        self.assertEqual(claims["exp"] - claims["iat"], 600)
        with self.assertRaises(jwt.InvalidSignatureError):
            jwt.decode(token(USER1), b"another key", algorithms=["HS256"])

    def test_gantryd_accepts_pyjwt_tokens_and_refuses_alg_none(self):
        import jwt
        now = int(time.time())
        made = jwt.encode({"iat": now, "exp": now + 60, "username": USER2}, token_key(),
                          algorithm="HS256")
        status, doc = rc.Client(URL, token=made, cafile=CA).post(
            V + "/job/submit", job_desc(USER2, "#!/bin/sh\ntrue\n"))
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(wait_job(client(USER2), doc["job_id"], ["COMPLETED"])["user_name"], USER2)
        unsigned = jwt.encode({"iat": now, "exp": now + 60, "sun": "root"}, None, algorithm="none")
        status, doc = rc.Client(URL, token=unsigned, cafile=CA).call("GET", V + "/jobs",
                                                                     check=False)
        self.assertEqual(status, 401)
        self.assertIn("algorithm none is not accepted", doc["errors"][0]["error"])


class Errors(unittest.TestCase):

    def test_bad_job_descriptions_name_the_field(self):
        c = client(USER1)
        cases = [
            ({"tasks": "many"}, "#/job/tasks", "Invalid numeric value"),
            ({"time_limit": "soon"}, "#/job/time_limit", "Invalid --time specification"),
            ({"partition": 7, "reservation": "r"}, "#/job/reservation", "not supported"),
            ({"environment": "A=1"}, "#/job/environment", "expected an array"),
            ({"current_working_directory": "relative"}, "#/job/current_working_directory",
             "absolute"),
        ]
        for extra, source, text in cases:
            body = job_desc(USER1, "#!/bin/sh\ntrue\n", **extra)
            status, doc = c.post(V + "/job/submit", body)
            self.assertEqual(status, 400, (extra, doc))
            self.assertIn(source, [e["source"] for e in doc["errors"]], doc["errors"])
            self.assertTrue(any(text in e["description"] for e in doc["errors"]), doc["errors"])
        status, doc = c.post(V + "/job/submit", {"job": {"script": "#!/bin/sh\n"}})
        self.assertEqual(status, 400)
        self.assertEqual({e["source"] for e in doc["errors"]},
                         {"#/job/current_working_directory", "#/job/environment"})

    def test_unknown_things(self):
        c = client(USER1)
        status, doc = c.get(V + "/job/999999")
        self.assertEqual(status, 404)
        self.assertEqual(doc["errors"][0]["error"], "Invalid job id specified")
        self.assertEqual(doc["errors"][0]["error_number"], 2017)
        status, doc = c.delete(V + "/job/999999")
        self.assertEqual(status, 404)
        status, doc = c.get(V + "/node/no-such-node")
        self.assertEqual(status, 404)
        status, doc = c.get(V + "/partition/nope")
        self.assertEqual(status, 404)
        status, doc = c.get(DB + "/job/999999")
        self.assertEqual(status, 404)
        status, _ = c.raw("GET", "/slurm/v0.0.42/no/such/route")
        self.assertEqual(status, 404)
        status, _ = c.raw("PUT", V + "/jobs")
        self.assertEqual(status, 405)

    def test_malformed_input_never_stops_the_daemon(self):
        c = client(USER1)
        bodies = [b"{", b"[]", b"null", b"\x00\xff\xfe", b'{"job": []}', b'{"job": {"tasks": 1e400}}',
                  b'{"job": {"script": 5}}', b"x" * (1 << 20), json.dumps({"job": {"nodes": "-1"}})]
        for path in [V + "/job/submit", V + "/job/allocate", V + "/job/1", V + "/nodes",
                     V + "/node/x", DB + "/users", DB + "/accounts", DB + "/users_association"]:
            for body in bodies:
                status, data = c.raw("POST", path, body=body,
                                     headers={"Content-Type": "application/json"})
                self.assertIn(status, (400, 403, 404, 409, 415, 422), (path, body[:20], data[:200]))
        for path in ["/%00", "/" + "a" * 5000, V + "/job/%FF", V + "/job/-1", V + "/job/1_2",
                     V + "/jobs/state?job_id=x,,", DB + "/jobs?start_time=yesterday"]:
            status, _ = c.raw("GET", path)
            self.assertIn(status, (400, 404, 422), path)
        status, doc = c.get(V + "/ping")
        self.assertEqual(status, 200)


class Auth(unittest.TestCase):

    def test_no_token_over_tcp_is_refused(self):
        status, doc = client().call("GET", V + "/jobs", check=False)
        self.assertEqual(status, 401)
        self.assertIn("no token", doc["errors"][0]["error"])

    def test_bearer_works_and_both_headers_do_not(self):
        t = token(USER1)
        status, doc = rc.Client(URL, token=t, bearer=True, cafile=CA).call("GET", V + "/ping")
        self.assertEqual(status, 200)
        status, doc = rc.Client(URL, token=t, cafile=CA).call(
            "GET", V + "/ping", headers={"Authorization": "Bearer " + t}, check=False)
        self.assertEqual(status, 401)

    def test_forged_and_expired_tokens_are_refused(self):
        t = token(USER1)
        header, payload, signature = t.split(".")
        forged = payload.replace(payload[5], "A" if payload[5] != "A" else "B", 1)
        for bad in [header + "." + forged + "." + signature, "x.y.z", ""]:
            status, doc = rc.Client(URL, token=bad, cafile=CA).call("GET", V + "/jobs",
                                                                     check=False)
            self.assertEqual(status, 401, (bad, doc["errors"]))
        short = token(USER1, "lifespan=1")
        time.sleep(2.1)
        status, doc = rc.Client(URL, token=short, cafile=CA).call("GET", V + "/jobs", check=False)
        self.assertEqual(status, 401)
        self.assertIn("expired", json.dumps(doc["errors"]))

    def test_only_root_mints_and_proxies_for_others(self):
        out = as_user(USER2, "scontrol", "token", "username=" + USER1)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("Access/permission denied", out.stderr)
        # A user's token naming another user is refused; root's acts as that user.
        c = rc.Client(URL, token=token(USER2), user=USER1, cafile=CA)
        status, doc = c.call("GET", V + "/ping", check=False)
        self.assertEqual(status, 401)
        c = rc.Client(URL, token=token("root"), user=USER1, cafile=CA)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\ntrue\n"))
        self.assertEqual(status, 200, doc["errors"])
        job = wait_job(c, doc["job_id"], ["COMPLETED"])
        self.assertEqual(job["user_name"], USER1)
        # root mints a token for a user, as Slurm's SlurmUser/root may.
        c = rc.Client(URL, token=token("root", "username=" + USER2), cafile=CA)
        status, doc = c.post(V + "/job/submit", job_desc(USER2, "#!/bin/sh\ntrue\n"))
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(wait_job(c, doc["job_id"], ["COMPLETED"])["user_name"], USER2)

    def test_one_user_cannot_touch_anothers_job(self):
        owner, other = client(USER1), client(USER2)
        status, doc = owner.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\nsleep 300\n"))
        job_id = doc["job_id"]
        wait_job(owner, job_id, ["RUNNING"])
        status, doc = other.delete("%s/job/%d" % (V, job_id))
        self.assertEqual(status, 403)
        self.assertEqual(doc["errors"][0]["error"], "Access/permission denied")
        status, doc = other.post("%s/job/%d" % (V, job_id), {"comment": "mine now"})
        self.assertEqual(status, 403, doc)
        status, doc = other.post(V + "/node/itest-cpu-0", {"state": ["DRAIN"], "reason": "x"})
        self.assertIn(status, (400, 403), doc)
        # Still the owner's, still running (a state array holds flags too: test membership).
        self.assertIn("RUNNING", wait_job(owner, job_id, ["RUNNING"])["job_state"])
        status, doc = owner.delete("%s/job/%d" % (V, job_id))
        self.assertEqual(status, 200, doc["errors"])

    def test_the_unix_socket_trusts_only_the_daemons_own_uid(self):
        status, doc = rc.Client(SOCKET).call("GET", V + "/ping")  # root, as the daemon
        self.assertEqual(status, 200)
        self.assertEqual(doc["meta"]["client"]["user"], "root")
        probe = ("import sys, json; sys.path.insert(0, %r); import rest_client as rc; "
                 "s, d = rc.Client(%r).call('GET', %r, check=False); print(s)"
                 % (os.path.dirname(os.path.abspath(__file__)), SOCKET, V + "/jobs"))
        out = as_user(USER2, sys.executable, "-c", probe)
        self.assertEqual(out.stdout.strip(), "401", out.stderr)


class Operators(unittest.TestCase):

    def test_drain_and_resume_a_node(self):
        c = client("root")
        status, doc = c.post(V + "/node/itest-cpu-3", {"state": ["DRAIN"], "reason": "bad gpu"})
        self.assertEqual(status, 200, doc["errors"])
        status, doc = c.get(V + "/node/itest-cpu-3")
        node = doc["nodes"][0]
        self.assertIn("DRAIN", node["state"])
        self.assertEqual(node["reason"], "bad gpu")
        self.assertIn("bad gpu", as_user("root", "sinfo", "-R", "-h").stdout)
        status, doc = c.post(V + "/nodes", {"name": ["itest-cpu-3"], "state": ["RESUME"]})
        self.assertEqual(status, 200, doc["errors"])
        status, doc = c.get(V + "/node/itest-cpu-3")
        self.assertNotIn("DRAIN", doc["nodes"][0]["state"])

    def test_accounts_and_users(self):
        c = client("root")
        status, doc = c.post(DB + "/accounts", {"accounts": [
            {"name": "vision", "description": "vision team", "organization": "research"}]})
        self.assertEqual(status, 200, doc["errors"])
        status, doc = c.post(DB + "/users", {"users": [
            {"name": USER2, "default": {"account": "vision"},
             "associations": [{"account": "vision", "user": USER2}]}]})
        self.assertEqual(status, 200, doc["errors"])
        status, doc = c.get(DB + "/user/" + USER2)
        self.assertIn("vision", [a["account"] for a in doc["users"][0]["associations"]])
        listed = as_user("root", "sacctmgr", "-n", "-P", "list", "assoc", "user=" + USER2,
                         "format=account").stdout.split()
        self.assertIn("vision", listed)
        status, doc = c.post(DB + "/users_association", {
            "association_condition": {"users": [USER1], "accounts": ["vision"]}, "user": {}})
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(doc["added_users"], USER1)
        for path in [DB + "/accounts", DB + "/account/vision", DB + "/associations?account=vision",
                     DB + "/qos", DB + "/qos/normal", DB + "/users", DB + "/tres", DB + "/diag",
                     DB + "/ping"]:
            status, doc = c.get(path)
            self.assertEqual(status, 200, (path, doc["errors"]))
        status, doc = client(USER1).delete(DB + "/user/" + USER2)
        self.assertEqual(status, 403, doc)
        status, doc = c.delete(DB + "/user/" + USER2)
        self.assertEqual(status, 200, doc["errors"])
        status, doc = c.post(DB + "/users", {"users": [
            {"name": USER2, "associations": [{"account": "nosuch", "user": USER2}]}]})
        self.assertEqual(status, 400)
        self.assertIn("nosuch", doc["errors"][0]["description"])
        as_user("root", "sacctmgr", "-i", "delete", "user", USER1, "account=vision")
        status, doc = c.delete(DB + "/account/vision")
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(doc["removed_accounts"], ["vision"])

    def test_controller_views(self):
        c = client(USER1)
        for path in ["/nodes", "/nodes/", "/partitions", "/partition/cpu", "/diag", "/shares",
                     "/licenses", "/reservations", "/reservation/none", "/jobs", "/jobs/",
                     "/jobs/state", "/ping/"]:
            status, doc = c.get(V + path)
            self.assertIn(status, (200, 404), (path, doc["errors"]))
        status, doc = c.get(V + "/reconfigure")
        self.assertEqual(status, 403)
        status, doc = client("root").get(V + "/reconfigure")
        self.assertEqual(status, 200)
        status, doc = c.post(V + "/job/allocate", {"job": {
            "environment": [], "current_working_directory": "/tmp", "time_limit": 1}})
        self.assertEqual(status, 200, doc["errors"])
        c.delete("%s/job/%d" % (V, doc["job_id"]))
        status, doc = c.call("DELETE", V + "/jobs", body={"user_name": USER1, "job_state": ["PENDING"]})
        self.assertEqual(status, 200, doc["errors"])

G = "/gantry/v1"


class GantryRoutes(unittest.TestCase):
    """Gantry's own routes (the dashboard's): explain, the output's tail, requeue."""

    def test_explain_says_why_a_job_waits(self):
        c = client(USER1)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\nsleep 1\n", hold=True))
        job_id = doc["job_id"]
        status, doc = c.get("%s/job/%d/explain" % (G, job_id))
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(doc["job_id"], job_id)
        # The same words as `gantry explain`.
        words = as_user(USER1, "gantry", "explain", str(job_id)).stdout
        self.assertEqual(doc["explanation"], words)
        self.assertIn("held", doc["explanation"])
        status, doc = c.get(G + "/job/99999999/explain")
        self.assertEqual(status, 404)
        status, doc = c.get(G + "/job/x1/explain")
        self.assertEqual((status, doc["errors"][0]["source"]), (400, "#/job_id"))
        c.delete("%s/job/%d" % (V, job_id))

    def test_output_tail_for_the_owner_only(self):
        c = client(USER1)
        script = "#!/bin/sh\nfor i in 1 2 3 4 5; do echo line $i; done\n"
        status, doc = c.post(V + "/job/submit", job_desc(USER1, script))
        job_id = doc["job_id"]
        wait_job(c, job_id, ["COMPLETED"])
        status, doc = c.get("%s/job/%d/output?lines=2" % (G, job_id))
        self.assertEqual(status, 200, doc["errors"])
        self.assertEqual(doc["text"], "line 4\nline 5\n")
        self.assertTrue(doc["truncated"])
        self.assertEqual(doc["path"], os.path.join(WORK, USER1, "slurm-%d.out" % job_id))
        status, doc = c.get("%s/job/%d/output" % (G, job_id))
        self.assertEqual((doc["text"].count("\n"), doc["truncated"]), (5, False))
        status, doc = client("root").get("%s/job/%d/output" % (G, job_id))
        self.assertEqual(status, 200, doc["errors"])
        # Another user may see the job but not read its output.
        status, doc = client(USER2).get("%s/job/%d/output" % (G, job_id))
        self.assertEqual(status, 403)
        self.assertEqual(doc["text"], "")
        for bad in ("lines=0", "lines=x", "lines=10001", "stream=stdin"):
            status, doc = c.get("%s/job/%d/output?%s" % (G, job_id, bad))
            self.assertEqual(status, 400, bad)
            self.assertEqual(doc["errors"][0]["source"], "#/" + bad.split("=")[0])

    def test_output_is_read_with_the_owners_rights(self):
        """The daemon runs as root; the owner of a job cannot make it read what they may not:
        their output file replaced by a link to /etc/shadow, or their folder by a link to
        another user's private folder."""
        c = client(USER1)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\necho mine\n"))
        job_id = doc["job_id"]
        wait_job(c, job_id, ["COMPLETED"])
        out = os.path.join(WORK, USER1, "slurm-%d.out" % job_id)
        as_user(USER1, "rm", out)
        self.assertEqual(as_user(USER1, "ln", "-s", "/etc/shadow", out).returncode, 0)
        status, doc = c.get("%s/job/%d/output" % (G, job_id))
        self.assertEqual(status, 403, doc)
        self.assertNotIn("root:", doc["text"])
        # A private file of USER2 where USER1's job would write, through a folder link.
        as_user(USER1, "mkdir", "-p", os.path.join(WORK, USER1, "run"))
        status, doc = c.post(V + "/job/submit", job_desc(
            USER1, "#!/bin/sh\necho mine\n",
            current_working_directory=os.path.join(WORK, USER1, "run")))
        self.assertEqual(status, 200, doc["errors"])
        job_id = doc["job_id"]
        wait_job(c, job_id, ["COMPLETED"])
        secret_dir = os.path.join(WORK, USER2, "secret")
        as_user(USER2, "mkdir", "-m", "700", secret_dir)
        as_user(USER2, "sh", "-c", "echo top-secret > %s/slurm-%d.out" % (secret_dir, job_id))
        as_user(USER1, "rm", "-rf", os.path.join(WORK, USER1, "run"))
        self.assertEqual(as_user(USER1, "ln", "-s", secret_dir,
                                 os.path.join(WORK, USER1, "run")).returncode, 0)
        status, doc = c.get("%s/job/%d/output" % (G, job_id))
        self.assertEqual(status, 403, doc)
        self.assertNotIn("top-secret", doc["text"])

    def test_requeue(self):
        c = client(USER1)
        status, doc = c.post(V + "/job/submit", job_desc(USER1, "#!/bin/sh\nsleep 300\n"))
        job_id = doc["job_id"]
        wait_job(c, job_id, ["RUNNING"])
        status, doc = client(USER2).post("%s/job/%d/requeue" % (G, job_id), {})
        self.assertEqual(status, 403, doc)
        status, doc = c.post("%s/job/%d/requeue?hold=true" % (G, job_id), {})
        self.assertEqual(status, 200, doc["errors"])
        job = wait_job(c, job_id, ["PENDING"])
        self.assertTrue(job["hold"])
        self.assertEqual(job["restart_cnt"], 1)
        status, doc = c.post("%s/job/%d/requeue?hold=maybe" % (G, job_id), {})
        self.assertEqual((status, doc["errors"][0]["source"]), (400, "#/hold"))
        c.delete("%s/job/%d" % (V, job_id))


class Coverage(unittest.TestCase):
    """Runs last (unittest sorts classes by name; see main): every route of the daemon's own table
    (/openapi.json) was called and its answer validated."""

    def test_every_route_was_checked(self):
        status, data = rc.Client(SOCKET).raw("GET", "/openapi.json")
        served = json.loads(data)["paths"]
        missing = []
        for path, ops in served.items():
            if path.startswith("/openapi"):
                continue
            for method in ops:
                spec_template, op = rc.spec_path_of(method.upper(), path)
                if op is None:
                    missing.append("%s %s is in neither the v0.0.42 spec nor Gantry's" % (method, path))
                elif (method.upper(), spec_template) not in rc.CHECKED:
                    missing.append("%s %s was never validated" % (method.upper(), path))
        self.assertEqual(missing, [])


if __name__ == "__main__":
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for case in (Workflow, Interop, Errors, Auth, Operators, GantryRoutes, Coverage):
        suite.addTests(loader.loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
