# Starting the anchor Slurm 22.05 cluster (../shared/anchors/slurm) beside Gantry for a
# benchmark; sourced by the bench scripts, which set $anchor, $work and $WITH_SLURM (auto|0|1).
#
# start_anchor [NAME=VALUE...]: runs the anchor's setup.sh with those settings (e.g. NNODES=8),
# as root and with Slurm's own commands first on PATH (its scripts call sinfo and sacctmgr by
# name); then sources its env.sh and exports SLURM_CONF. Returns 1, saying why on stderr, when
# Slurm is not wanted, not installable here (not root) or does not come up.
start_anchor() {
  [ "$WITH_SLURM" != 0 ] && [ "$(id -u)" = 0 ] && [ -x "$anchor/setup.sh" ] &&
    { [ "$WITH_SLURM" = 1 ] || command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ]; } ||
    return 1
  echo "# slurm: starting the anchor cluster $*" >&2
  if ! env -u GANTRY_CONF "$@" PATH=/usr/sbin:/usr/bin:/sbin:/bin "$anchor/setup.sh" \
    >"$work/slurm-setup.log" 2>&1; then
    echo "# slurm: setup failed, see below; Slurm figures left out" >&2
    tail -5 "$work/slurm-setup.log" >&2
    return 1
  fi
  . "$anchor/env.sh"
  export SLURM_CONF=$SLURM_ETC/slurm.conf
}

# restart_slurmctld: stops the anchor's slurmctld and starts it again (its saved state kept), so
# that a figure of its memory is not made of memory freed by the jobs before (a fresh process,
# as Gantry's is for the same figure); sets spid. Returns 1 when it does not come back.
restart_slurmctld() {
  local pid
  pid=$(cat "$RUN_DIR/slurmctld.pid") || return 1
  kill "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  start_anchor || return 1
  spid=$(cat "$RUN_DIR/slurmctld.pid")
  local tries=0
  until /usr/bin/sinfo >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -lt 150 ] || return 1
    sleep 0.2
  done
}
