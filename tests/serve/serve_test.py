"""`gantry serve` over HTTP, as a pipeline drives Vertex AI's cluster API, as root and a second
unix user:

  a pipeline creates a cluster, waits for the operation, submits a job through
  :callSlurmRestApi (as the calling user's own account), waits for it, and deletes the cluster;
  plus bad specs (400 with every problem and its JSON path), paging, PATCH with an updateMask,
  :reportFaultyNodes (drain and requeue), who may do what, and operations kept across a
  restart of the server.

usage: serve_test.py WORK_DIR SPEC USER  (GANTRY_HOME and GANTRY_SERVE_URL set; gantry on PATH)
"""
import json
import os
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

WORK, SPEC, USER = sys.argv[1:4]
del sys.argv[1:4]
HOME = os.environ["GANTRY_HOME"]
PARENT = "/v1beta1/projects/proj-1/locations/us-central1"
CLUSTERS = PARENT + "/modelDevelopmentClusters"


def url():
    with open(os.path.join(WORK, "serve.url")) as f:
        return f.read().strip()


def as_user(user, *argv):
    cmd = list(argv) if user == "root" else ["runuser", "-u", user, "--", "env",
                                             "PATH=" + os.environ["PATH"],
                                             "GANTRY_HOME=" + HOME] + list(argv)
    return subprocess.run(cmd, capture_output=True, text=True)


def token(user):
    out = as_user(user, "gantry", "serve", "token")
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert line.startswith("GANTRY_SERVE_TOKEN="), line
    return line.split("=", 1)[1]


def call(method, path, body=None, user="root", raw=None, headers=None):
    """(status, JSON answer) of METHOD PATH over TCP with `user`'s token."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url() + path, data=data, method=method)
    if user is not None:
        request.add_header("Authorization", "Bearer " + token(user))
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def wait_operation(op, seconds=120):
    """The operation once done (polled under /v1/, as Vertex's clients do)."""
    deadline = time.time() + seconds
    while not op.get("done"):
        assert time.time() < deadline, op
        time.sleep(0.3)
        status, op = call("GET", "/v1/" + op["name"])
        assert status == 200, op
    return op


def slurm(cluster, method, path, body=None, user="root"):
    """:callSlurmRestApi: (the REST daemon's status, its answer decoded)."""
    request = {"method": "HTTP_METHOD_" + method, "path": path}
    if body is not None:
        request["body"] = body
    status, answer = call("POST", "%s/%s:callSlurmRestApi" % (CLUSTERS, cluster), request, user=user)
    assert status == 200, answer
    return answer["status"], json.loads(answer["body"])


def wait_job(cluster, job_id, states, user, seconds=90):
    deadline = time.time() + seconds
    while True:
        status, doc = slurm(cluster, "GET", "/slurm/v0.0.42/job/%d" % job_id, user=user)
        assert status == 200, doc
        job = doc["jobs"][0]
        if any(s in job["job_state"] for s in states) and "COMPLETING" not in job["job_state"]:
            return job
        assert time.time() < deadline, job["job_state"]
        time.sleep(0.3)


def spec_text():
    with open(SPEC) as f:
        return f.read()


class Pipeline(unittest.TestCase):
    """Create, wait, submit through :callSlurmRestApi, wait for the job, delete."""

    def test_create_submit_wait_delete(self):
        status, op = call("POST", CLUSTERS + "?model_development_cluster_id=pipeline-1",
                          raw=spec_text().encode())
        self.assertEqual(status, 200, op)
        self.assertTrue(op["name"].startswith("projects/proj-1/locations/us-central1/operations/"))
        self.assertTrue(op["metadata"]["@type"].endswith("CreateModelDevelopmentClusterOperationMetadata"))
        op = wait_operation(op)
        self.assertNotIn("error", op)
        self.assertEqual(op["response"]["name"], CLUSTERS[len("/v1beta1/"):] + "/pipeline-1")
        status, cluster = call("GET", CLUSTERS + "/pipeline-1")
        self.assertEqual(status, 200, cluster)
        self.assertEqual(cluster["clusterStatus"]["state"], "RUNNING")
        self.assertEqual({n["nodeState"] for n in cluster["clusterStatus"]["nodesStatus"]},
                         {"RUNNING"})
        # The job runs as the caller's own account.
        home = os.path.join(WORK, USER)
        status, doc = slurm("pipeline-1", "POST", "/slurm/v0.0.42/job/submit", {"job": {
            "script": "#!/bin/bash\necho step done by $(id -un)\n", "name": "step",
            "current_working_directory": home, "environment": ["PATH=/usr/bin:/bin"]}}, user=USER)
        self.assertEqual(status, 200, doc["errors"])
        job = wait_job("pipeline-1", doc["job_id"], ["COMPLETED", "FAILED"], USER)
        self.assertEqual((job["job_state"], job["user_name"]), (["COMPLETED"], USER))
        with open(os.path.join(home, "slurm-%d.out" % doc["job_id"])) as f:
            self.assertEqual(f.read(), "step done by %s\n" % USER)
        status, record = slurm("pipeline-1", "GET", "/slurmdb/v0.0.42/job/%d" % doc["job_id"],
                               user=USER)
        self.assertEqual(record["jobs"][0]["state"]["current"], ["COMPLETED"])
        # Delete, and it is gone.
        status, op = call("DELETE", CLUSTERS + "/pipeline-1")
        self.assertEqual(status, 200, op)
        op = wait_operation(op)
        self.assertEqual(op["response"], {"@type": "type.googleapis.com/google.protobuf.Empty"})
        self.assertEqual(call("GET", CLUSTERS + "/pipeline-1")[0], 404)
        self.assertFalse(os.path.exists(os.path.join(HOME, "pipeline-1")))


class BadInput(unittest.TestCase):

    def test_a_bad_spec_lists_every_problem_with_its_path(self):
        spec = json.loads(spec_text())
        spec["display_name"] = "Not Valid"
        spec["node_pools"][1]["machine_spec"]["machine_type"] = "n9-imaginary-8"
        spec["orchestrator_spec"]["slurm_spec"]["partitions"][0]["node_pool_ids"] = ["nope"]
        status, answer = call("POST", CLUSTERS + "?model_development_cluster_id=bad-1", spec)
        self.assertEqual(status, 400, answer)
        self.assertEqual(answer["error"]["status"], "INVALID_ARGUMENT")
        fields = [v["field"] for v in answer["error"]["details"][0]["fieldViolations"]]
        self.assertIn("display_name", fields)
        self.assertIn("node_pools[1].machine_spec.machine_type", fields)
        self.assertIn("orchestrator_spec.slurm_spec.partitions[0].node_pool_ids[0]", fields)
        # The same problems `gantry spec validate` prints, one line each.
        path = os.path.join(WORK, "bad-spec.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        validate = as_user("root", "gantry", "spec", "validate", path)
        self.assertEqual(len(fields), len([l for l in validate.stderr.splitlines()
                                           if l.startswith(path + ": ") and "problem" not in l]))
        self.assertFalse(os.path.exists(os.path.join(HOME, "bad-1")))

    def test_malformed_requests(self):
        cases = [
            ("POST", CLUSTERS + "?model_development_cluster_id=Bad_Id", b"{}", 400),
            ("POST", CLUSTERS, b"{}", 400),
            ("POST", CLUSTERS + "?model_development_cluster_id=ok-1", b"{not json", 400),
            ("POST", CLUSTERS + "?model_development_cluster_id=ok-1", b"[]", 400),
            ("GET", CLUSTERS + "/missing-1", None, 404),
            ("GET", CLUSTERS + "?pageSize=-3", None, 400),
            ("GET", CLUSTERS + "?pageToken=%%%", None, 400),
            ("GET", PARENT + "/operations/12345", None, 404),
            ("PUT", CLUSTERS + "/missing-1", b"{}", 405),
            ("POST", CLUSTERS + "/missing-1:explode", b"{}", 404),
            ("GET", "/v1beta1/projects", None, 404),
        ]
        for method, path, raw, expected in cases:
            status, answer = call(method, path, raw=raw)
            self.assertEqual(status, expected, (method, path, answer))
            self.assertEqual(answer["error"]["code"], expected)
        status, _ = call("GET", CLUSTERS)  # the server lived through all of it
        self.assertEqual(status, 200)


class Who(unittest.TestCase):

    def test_tokens_and_permissions(self):
        self.assertEqual(call("GET", CLUSTERS, user=None)[0], 401)
        status, answer = call("GET", CLUSTERS, user=None,
                              headers={"Authorization": "Bearer " + token(USER) + "x"})
        self.assertEqual(status, 401, answer)
        # A plain user reads but does not manage.
        self.assertEqual(call("GET", CLUSTERS, user=USER)[0], 200)
        status, answer = call("POST", CLUSTERS + "?model_development_cluster_id=mine-1",
                              raw=spec_text().encode(), user=USER)
        self.assertEqual(status, 403, answer)
        self.assertFalse(os.path.exists(os.path.join(HOME, "mine-1")))
        out = as_user(USER, "gantry", "serve", "token", "--username", "root")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("may not make tokens for other users", out.stderr)


class Manage(unittest.TestCase):
    """One cluster through list, PATCH and a fault report."""

    @classmethod
    def setUpClass(cls):
        status, op = call("POST", CLUSTERS + "?model_development_cluster_id=managed-1",
                          raw=spec_text().encode())
        assert status == 200, op
        op = wait_operation(op)
        assert "error" not in op, op

    @classmethod
    def tearDownClass(cls):
        wait_operation(call("DELETE", CLUSTERS + "/managed-1")[1])

    def test_list_pages_and_projects(self):
        # A cluster made by the command (no project) is listed under every project.
        out = as_user("root", "gantry", "cluster", "create", "--spec", SPEC, "--state-dir",
                      os.path.join(HOME, "cli-made"))
        self.assertEqual(out.returncode, 0, out.stderr)
        try:
            status, page = call("GET", CLUSTERS + "?pageSize=1")
            self.assertEqual(status, 200, page)
            self.assertEqual(len(page["modelDevelopmentClusters"]), 1)
            names = [page["modelDevelopmentClusters"][0]["name"]]
            status, page = call("GET", CLUSTERS + "?pageSize=1&pageToken=" + page["nextPageToken"])
            names.append(page["modelDevelopmentClusters"][0]["name"])
            self.assertEqual([n.rsplit("/", 1)[1] for n in names], ["cli-made", "managed-1"])
            self.assertNotIn("nextPageToken", page)
            status, other = call("GET", "/v1beta1/projects/other/locations/x/modelDevelopmentClusters")
            self.assertEqual([c["name"].rsplit("/", 1)[1] for c in other["modelDevelopmentClusters"]],
                             ["cli-made"])
            self.assertEqual(call("GET", "/v1beta1/projects/other/locations/x/"
                                  "modelDevelopmentClusters/managed-1")[0], 404)
        finally:
            as_user("root", "gantry", "cluster", "delete", "--yes", "--state-dir",
                    os.path.join(HOME, "cli-made"))

    def test_patch_with_an_update_mask(self):
        spec = json.loads(spec_text())
        spec["orchestrator_spec"]["slurm_spec"]["partitions"][0]["config"]["MaxTime"] = "02:00:00"
        spec["display_name"] = "renamed"  # not in the mask: left as it is
        status, op = call("PATCH", CLUSTERS + "/managed-1?updateMask=orchestratorSpec.slurmSpec.partitions",
                          spec)
        self.assertEqual(status, 200, op)
        op = wait_operation(op)
        self.assertNotIn("error", op)
        status, doc = slurm("managed-1", "GET", "/slurm/v0.0.42/partition/cpu")
        self.assertEqual(doc["partitions"][0]["maximums"]["time"]["number"], 120)
        status, cluster = call("GET", CLUSTERS + "/managed-1")
        self.assertEqual(cluster["display_name"], "itest")
        # What may not change is named.
        status, answer = call("PATCH", CLUSTERS + "/managed-1?updateMask=display_name", spec)
        self.assertEqual(status, 400, answer)
        self.assertEqual(answer["error"]["details"][0]["fieldViolations"][0]["field"], "updateMask")
        self.assertEqual(call("PATCH", CLUSTERS + "/managed-1", spec)[0], 400)  # no mask

    def test_report_a_faulty_node(self):
        status, doc = slurm("managed-1", "POST", "/slurm/v0.0.42/job/submit", {"job": {
            "script": "#!/bin/bash\nsleep 300\n", "current_working_directory": "/tmp",
            "environment": ["PATH=/usr/bin:/bin"], "requeue": True}})
        self.assertEqual(status, 200, doc["errors"])
        job_id = doc["job_id"]
        node = wait_job("managed-1", job_id, ["RUNNING"], "root")["nodes"]
        status, op = call("POST", CLUSTERS + "/managed-1:reportFaultyNodes", {"nodeActions": [{
            "nodeId": node, "reportFaultyHost": {"faultReasons": [
                {"behavior": "GPU_ERROR", "description": "XID 79"}]}}]})
        self.assertEqual(status, 200, op)
        op = wait_operation(op)
        self.assertNotIn("error", op)
        self.assertEqual(op["response"]["requeuedJobs"], [job_id])
        status, doc = slurm("managed-1", "GET", "/slurm/v0.0.42/node/" + node)
        self.assertIn("DRAIN", doc["nodes"][0]["state"])
        self.assertEqual(doc["nodes"][0]["reason"], "reported faulty: GPU_ERROR: XID 79")
        status, cluster = call("GET", CLUSTERS + "/managed-1")
        states = {n["nodeId"]: n["nodeState"] for n in cluster["clusterStatus"]["nodesStatus"]}
        self.assertEqual(states[node], "REPAIRING")
        job = wait_job("managed-1", job_id, ["RUNNING", "PENDING"], "root")
        self.assertEqual(job["restart_cnt"], 1)
        self.assertNotEqual(job["nodes"], node)
        # A plain user may not; an unknown node is named.
        status, answer = call("POST", CLUSTERS + "/managed-1:reportFaultyNodes",
                              {"nodeActions": [{"nodeId": node}]}, user=USER)
        self.assertEqual(status, 403, answer)
        status, answer = call("POST", CLUSTERS + "/managed-1:reportFaultyNodes",
                              {"nodeActions": [{"nodeId": "nope-0"}]})
        self.assertEqual(answer["error"]["details"][0]["fieldViolations"][0]["field"],
                         "nodeActions[0].nodeId")
        slurm("managed-1", "DELETE", "/slurm/v0.0.42/job/%d" % job_id)
        slurm("managed-1", "POST", "/slurm/v0.0.42/node/" + node, {"state": ["RESUME"]})

    def test_call_slurm_rest_api_checks_its_request(self):
        for body, field in (({"method": "HTTP_METHOD_PUT", "path": "/slurm/v0.0.42/jobs"}, "method"),
                            ({"method": "GET", "path": "/ui/"}, "path"),
                            ({"method": "GET", "path": "/slurm/v0.0.42/jobs\r\nX: y"}, "path")):
            status, answer = call("POST", CLUSTERS + "/managed-1:callSlurmRestApi", body)
            self.assertEqual(status, 400, answer)
            self.assertEqual(answer["error"]["details"][0]["fieldViolations"][0]["field"], field)
        # Another user's job is another user's, through this door too.
        status, doc = slurm("managed-1", "POST", "/slurm/v0.0.42/job/submit", {"job": {
            "script": "#!/bin/bash\nsleep 300\n", "current_working_directory": "/tmp",
            "environment": ["PATH=/usr/bin:/bin"]}})
        status, answer = slurm("managed-1", "DELETE", "/slurm/v0.0.42/job/%d" % doc["job_id"],
                               user=USER)
        self.assertEqual(status, 403, answer)
        slurm("managed-1", "DELETE", "/slurm/v0.0.42/job/%d" % doc["job_id"])


if __name__ == "__main__":
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for case in (Pipeline, BadInput, Who, Manage):
        suite.addTests(loader.loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
