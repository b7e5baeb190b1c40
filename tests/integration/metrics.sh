#!/usr/bin/env bash
# gantryd's OpenMetrics endpoints on a real local cluster: the figures after a job ran, counters
# that sdiag -r does not reset, health pages, and Debian's Prometheus scraping the cluster and
# answering queries about it through its HTTP API (skipped where prometheus is not installed).
# usage: metrics.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
[ -n "${GANTRY_METRICS_URL:-}" ] || fail "gantry env exported no GANTRY_METRICS_URL"
base=${GANTRY_METRICS_URL%/metrics}
scrape() { curl -sf "$base$1"; }
metric() { scrape "${2:-/metrics}" | awk -v m="$1" '$1 == m { print $2 }'; }

for page in /livez /readyz /healthz; do
  [ "$(scrape "$page")" = ok ] || fail "$page"
done
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics/nonsense")
[ "$code" = 404 ] || fail "/metrics/nonsense answered $code"
type=$(curl -s -o /dev/null -w '%{content_type}' "$base/metrics/nodes")
[[ "$type" == application/openmetrics-text* ]] || fail "content type $type"
scrape /metrics/nodes | tail -1 | grep -qx '# EOF' || fail "no # EOF"

# Who may read: anyone who reaches the port (loopback here), another unix user too; it only
# answers GET, so nobody changes anything through it.
if [ "$(id -u)" = 0 ]; then
  other=$(runuser -u nobody -- curl -sf "$base/metrics/nodes" | awk '$1 == "slurm_nodes" {print $2}')
  [ "$other" = 4 ] || fail "another user read slurm_nodes as '$other'"
fi
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/metrics")
[ "$code" = 405 ] || fail "POST /metrics answered $code"
[ "$(metric slurm_nodes /metrics/nodes)" = 4 ] || fail "slurm_nodes $(metric slurm_nodes)"
[ "$(metric slurm_nodes_idle /metrics/nodes)" = 4 ] || fail "slurm_nodes_idle"
id=$(sbatch --parsable -o /dev/null --wrap 'sleep 2') || fail sbatch
held=$(sbatch --parsable -H -o /dev/null --wrap true) || fail sbatch
wait_state "$id" RUNNING
[ "$(metric slurm_jobs_running /metrics/jobs)" = 1 ] || fail "slurm_jobs_running"
[ "$(metric slurm_jobs_hold /metrics/jobs)" = 1 ] || fail "slurm_jobs_hold"
[ "$(metric 'gantry_jobs_pending_reason{reason="JobHeldUser"}' /metrics/jobs)" = 1 ] ||
  fail "pending reason"
[ "$(metric 'slurm_partition_jobs_running{partition="cpu"}' /metrics/partitions)" = 1 ] ||
  fail "partition jobs"
[ "$(metric slurm_nodes_idle /metrics/nodes)" = 3 ] || fail "idle nodes while one runs"
[ "$(metric "slurm_user_jobs_running{username=\"$(id -un)\"}" /metrics/jobs-users-accts)" = 1 ] ||
  fail "user jobs"
wait_state "$id" COMPLETED
scancel "$held"
# Counters run from the start; sdiag -r resets only what sdiag shows.
[ "$(metric gantry_jobs_submitted_total /metrics/scheduler)" = 2 ] || fail "submitted total"
sdiag -r >/dev/null || fail "sdiag -r"
[ "$(metric gantry_jobs_submitted_total /metrics/scheduler)" = 2 ] || fail "reset the counter"
[ "$(metric slurm_sdiag_jobs_submitted /metrics/scheduler)" = 0 ] || fail "sdiag figure kept"
[ "$(metric gantry_commit_seconds_count /metrics/scheduler)" -gt 0 ] || fail "no commits timed"
scrape /metrics/scheduler | grep -q '^gantry_rpc_seconds_count{type="REQUEST_SUBMIT_BATCH_JOB"} 2$' ||
  fail "rpc latency histogram"

# Each agent serves its own page: the launch it did, timed.
node=$(sacct -n -X -P -j "$id" -o NodeList)
agent_url=$(cat "$STATE/spool/$node/metrics.url")/metrics || fail "no metrics URL for agent $node"
agent_metric() { curl -sf "$agent_url" | awk -v m="$1" '$1 == m { print $2 }'; }
[ "$(agent_metric "gantry_agent_launches_total{node=\"$node\"}")" = 1 ] || fail "agent launches"
[ "$(agent_metric "gantry_agent_launch_seconds_count{node=\"$node\"}")" = 1 ] ||
  fail "agent launch latency"
[ "$(agent_metric "gantry_agent_prolog_seconds_count{node=\"$node\"}")" = 1 ] ||
  fail "agent prolog latency"
[ "$(agent_metric "gantry_agent_launch_failures_total{node=\"$node\"}")" = 0 ] ||
  fail "agent launch failures"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$agent_url")
[ "$code" = 405 ] || fail "POST to the agent's /metrics answered $code"
curl -sf "${agent_url%/metrics}/livez" >/dev/null || fail "agent /livez"
# Like gantryd's, the agent's page is for any local user to read, and only to read.
if [ "$(id -u)" = 0 ]; then
  runuser -u nobody -- curl -sf "$agent_url" | grep -q '^gantry_agent_launches_total' ||
    fail "another user cannot read the agent's page"
  code=$(runuser -u nobody -- curl -s -o /dev/null -w '%{http_code}' -X POST "$agent_url")
  [ "$code" = 405 ] || fail "another user's POST to the agent's page answered $code"
fi

# Prometheus scrapes it and answers from what it stored.
if ! command -v prometheus >/dev/null; then
  echo "PASS (prometheus not installed: the scrape by Prometheus was skipped)"
  exit 0
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
target=${base#http://}
agent_target=${agent_url#http://}
agent_target=${agent_target%/metrics}
cat >"$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gantry
    static_configs:
      - targets: ["$target"]
  - job_name: agent
    static_configs:
      - targets: ["$agent_target"]
YML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prometheus" \
  --web.listen-address="127.0.0.1:$port" >"$WORK/prometheus.log" 2>&1 &
EXTRA_PIDS="$!"
query() {
  curl -sf "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
answered() { [ "$(query slurm_nodes 2>/dev/null)" = 4 ]; }
wait_for 60 answered || { tail -20 "$WORK/prometheus.log"; fail "Prometheus never had slurm_nodes = 4"; }
[ "$(query 'up{job="gantry"}')" = 1 ] || fail "Prometheus says the target is down"
[ "$(query gantry_jobs_submitted_total)" = 2 ] || fail "submitted total through Prometheus"
agent_scraped() { [ "$(query 'sum(gantry_agent_launches_total)' 2>/dev/null)" = 1 ]; }
wait_for 30 agent_scraped || fail "Prometheus never read the agent's launches"
[ "$(query 'sum(slurm_node_cpus)')" = "$(metric 'slurm_partition_cpus{partition="cpu"}' /metrics/partitions)" ] ||
  fail "node CPUs through Prometheus"
echo PASS
