# Sourced by the cluster benchmarks: the process floor of a trivial job, the processes such a
# job needs whatever the system and nothing else (Gantry's sbatch start-up, a bash prolog,
# `sh -c true`, a bash epilog), from 2 loops: the most any system can reach on this machine.
#
# process_floor N BIN WORK: prints the rate in jobs/s (N rounded down to even; WORK: a folder
# for the prolog's and epilog's output).
process_floor() {
  local n=$1 bin=$2 work=$3 t0 t1
  _floor_loop() {
    local i
    for ((i = 0; i < $1; i++)); do
      "$bin/sbatch" --version
      bash -c "echo prolog >> $work/floor.log"
      sh -c true
      bash -c "echo epilog >> $work/floor.log"
    done >/dev/null 2>&1
  }
  t0=$(date +%s.%N)
  _floor_loop $((n / 2)) &
  _floor_loop $((n / 2))
  wait
  t1=$(date +%s.%N)
  python3 -c "print(round($((n / 2 * 2)) / ($t1 - $t0), 2))"
}
