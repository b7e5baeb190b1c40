#!/usr/bin/python3
"""What one durable commit costs in each engine a replicated gantryd could keep its log in.

Issue 28 asks for two or three controllers whose leadership and log live in an existing engine
from Debian: etcd 3.4 (three members, Raft) or PostgreSQL 15 with a synchronous standby. This
starts both on this machine (loopback, data on the local disk) and times what gantryd would do
for each accepted change: append one event of about 1 KiB, durably, then answer.

  etcd put            one key per event (the log), sequential, over one HTTP/1.1 connection to
                      the leader's gRPC gateway (what a C++ client over gRPC costs, less JSON)
  etcd fenced txn     the same put inside a transaction that first compares the leader key's
                      revision (fencing: a deposed leader's write fails)
  postgres sync       INSERT of one row, autocommit, synchronous_commit=on with a synchronous
                      streaming standby (the primary waits for the standby's flush)
  postgres alone      the same without a standby (what the accounting store costs today)

Each figure: the median and the 99th percentile of N commits, and commits per second from one
client. Run as root (PostgreSQL runs as the postgres user). Needs etcd-server, etcd-client,
postgresql-15 and python3-psycopg2 (scripts/setup installs them).

usage: /usr/bin/python3 bench/ha_commit_bench.py [--commits N] [--keep]
"""

import argparse
import base64
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

PG_BIN = "/usr/lib/postgresql/15/bin"
EVENT = b"x" * 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if check():
                return
        except Exception:  # noqa: BLE001 - not up yet
            pass
        time.sleep(0.2)
    sys.exit("ha_commit_bench: %s did not come up" % what)


def summary(name, times):
    times = sorted(times)
    p50 = statistics.median(times) * 1000
    p99 = times[int(len(times) * 0.99) - 1] * 1000
    rate = len(times) / sum(times)
    print("%-22s %8.2f ms %8.2f ms %10.0f /s" % (name, p50, p99, rate), flush=True)
    return p50


def b64(data):
    return base64.b64encode(data).decode()


class Etcd:
    """Three members on loopback."""

    def __init__(self, root):
        self.root = root
        self.procs = []
        self.clients = [free_port() for _ in range(3)]
        peers = [free_port() for _ in range(3)]
        cluster = ",".join("m%d=http://127.0.0.1:%d" % (i, p) for i, p in enumerate(peers))
        for i in range(3):
            log = open(os.path.join(root, "etcd-m%d.log" % i), "w")
            self.procs.append(subprocess.Popen(
                ["etcd", "--name", "m%d" % i, "--data-dir", os.path.join(root, "etcd-m%d" % i),
                 "--listen-client-urls", "http://127.0.0.1:%d" % self.clients[i],
                 "--advertise-client-urls", "http://127.0.0.1:%d" % self.clients[i],
                 "--listen-peer-urls", "http://127.0.0.1:%d" % peers[i],
                 "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peers[i],
                 "--initial-cluster", cluster, "--initial-cluster-state", "new",
                 "--initial-cluster-token", "gantry-bench"],
                stdout=log, stderr=subprocess.STDOUT))
        wait_for("etcd", lambda: self.call(0, "/v3/maintenance/status", {}).get("leader"))
        leader_id = self.call(0, "/v3/maintenance/status", {})["leader"]
        self.leader = next(i for i in range(3)
                           if self.call(i, "/v3/maintenance/status", {})["header"]["member_id"]
                           == leader_id)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.clients[self.leader])

    def call(self, member, path, body, conn=None):
        c = conn or http.client.HTTPConnection("127.0.0.1", self.clients[member], timeout=5)
        c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        reply = json.loads(c.getresponse().read())
        if conn is None:
            c.close()
        return reply

    def put(self, key, value):
        return self.call(self.leader, "/v3/kv/put", {"key": b64(key), "value": b64(value)},
                         self.conn)

    def fenced_put(self, fence_key, fence_revision, key, value):
        return self.call(self.leader, "/v3/kv/txn", {
            "compare": [{"key": b64(fence_key), "target": "MOD", "result": "EQUAL",
                         "mod_revision": str(fence_revision)}],
            "success": [{"request_put": {"key": b64(key), "value": b64(value)}}],
        }, self.conn)

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait()


class Postgres:
    """A primary, and with `standby` a synchronous streaming standby."""

    def __init__(self, root, standby):
        self.root = root
        self.procs = []
        self.port = free_port()
        primary = os.path.join(root, "pg-primary" + ("-sync" if standby else ""))
        self.dirs = [primary]
        self.run(PG_BIN + "/initdb", "-D", primary, "-U", "postgres", "--auth", "trust")
        with open(os.path.join(primary, "postgresql.conf"), "a") as conf:
            conf.write("listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = "
                       "'%s'\nwal_level = replica\nmax_wal_senders = 4\nsynchronous_commit = on\n"
                       "fsync = on\n" % (self.port, root))
            if standby:
                conf.write("synchronous_standby_names = '*'\n")
        with open(os.path.join(primary, "pg_hba.conf"), "a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        self.start(primary)
        if standby:
            copy = os.path.join(root, "pg-standby")
            self.dirs.append(copy)
            port = free_port()
            self.run(PG_BIN + "/pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port),
                     "-U", "postgres", "-D", copy, "-R", "-X", "stream")
            with open(os.path.join(copy, "postgresql.conf"), "a") as conf:
                conf.write("port = %d\n" % port)
            self.start(copy)
        import psycopg2  # Debian's python3-psycopg2
        self.db = None
        wait_for("postgres", self.connect)
        if standby:
            wait_for("the synchronous standby", lambda: self.query(
                "SELECT sync_state FROM pg_stat_replication") == [("sync",)])
        self.cursor = self.db.cursor()
        self.cursor.execute("CREATE TABLE events (seq bigserial PRIMARY KEY, body bytea)")

    def connect(self):
        import psycopg2
        self.db = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres",
                                   dbname="postgres")
        self.db.autocommit = True
        return True

    def query(self, sql):
        with self.db.cursor() as c:
            c.execute(sql)
            return c.fetchall()

    def run(self, *argv):
        subprocess.run(["runuser", "-u", "postgres", "--"] + list(argv), check=True,
                       stdout=subprocess.DEVNULL)

    def start(self, data):
        log = os.path.join(self.root, os.path.basename(data) + ".log")
        self.run(PG_BIN + "/pg_ctl", "-D", data, "-l", log, "-w", "start")

    def insert(self, body):
        self.cursor.execute("INSERT INTO events (body) VALUES (%s)", (body,))

    def stop(self):
        if self.db is not None:
            self.db.close()
        for data in reversed(self.dirs):
            self.run(PG_BIN + "/pg_ctl", "-D", data, "-m", "immediate", "stop")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--keep", action="store_true", help="keep the data dirs")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("ha_commit_bench: run as root (PostgreSQL runs as the postgres user)")
    root = tempfile.mkdtemp(prefix="gantry-ha-bench-", dir="/var/tmp")
    os.chmod(root, 0o755)
    shutil.chown(root, "postgres")
    print("%d sequential commits of a 1 KiB event, data on %s" % (args.commits, root))
    print("%-22s %11s %11s %13s" % ("engine", "median", "p99", "one client"))
    engines = []
    try:
        etcd = Etcd(root)
        engines.append(etcd)
        fence = etcd.put(b"gantry/leader", b"m0")
        revision = int(fence["header"]["revision"])
        times = []
        for i in range(args.commits):
            start = time.perf_counter()
            etcd.put(b"gantry/log/%020d" % i, EVENT)
            times.append(time.perf_counter() - start)
        summary("etcd put (3 members)", times)
        times = []
        for i in range(args.commits):
            start = time.perf_counter()
            reply = etcd.fenced_put(b"gantry/leader", revision, b"gantry/log/f%020d" % i, EVENT)
            times.append(time.perf_counter() - start)
            if not reply.get("succeeded"):
                sys.exit("ha_commit_bench: the fenced put failed: %s" % reply)
        summary("etcd fenced txn", times)
        # A deposed leader's write (its fence is stale) is refused.
        etcd.put(b"gantry/leader", b"m1")
        stale = etcd.fenced_put(b"gantry/leader", revision, b"gantry/log/stale", EVENT)
        print("%-22s %s" % ("stale fence refused", "yes" if not stale.get("succeeded") else "NO"))
        etcd.stop()
        engines.remove(etcd)
        for standby, name in ((True, "postgres sync standby"), (False, "postgres alone")):
            pg = Postgres(root, standby)
            engines.append(pg)
            times = []
            for _ in range(args.commits):
                start = time.perf_counter()
                pg.insert(EVENT)
                times.append(time.perf_counter() - start)
            summary(name, times)
            pg.stop()
            engines.remove(pg)
    finally:
        for engine in engines:
            engine.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
