#!/usr/bin/env bash
# Golden test of `gantry spec ...`: each case runs the real binary and compares stdout, stderr
# and the exit code with tests/golden/cli/<case>.out. Regenerate after a deliberate change with
#   UPDATE_GOLDEN=1 bash tests/golden/gantry_spec.sh build/bin .
# Usage: gantry_spec.sh BIN_DIR SOURCE_ROOT
set -uo pipefail
bin=$1
root=$2
cd "$root" || exit 1
golden=tests/golden/cli
specs=tests/golden/specs
mkdir -p "$golden"
failures=0
cases=0

check() {  # check NAME ARGS...
  local name=$1
  shift
  cases=$((cases + 1))
  local actual
  actual=$({ "$bin/gantry" "$@" 2>&1; echo "exit=$?"; })
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    printf '%s\n' "$actual" >"$golden/$name.out"
    return
  fi
  if ! diff -u "$golden/$name.out" <(printf '%s\n' "$actual") >/tmp/gantry-golden-diff.$$; then
    echo "FAIL $name: gantry $*"
    cat /tmp/gantry-golden-diff.$$
    failures=$((failures + 1))
  fi
  rm -f /tmp/gantry-golden-diff.$$
}

check validate-examples spec validate examples/cluster.json examples/cluster-config-maps.json
for f in "$specs"/bad-*.json; do
  check "validate-$(basename "$f" .json)" spec validate "$f"
done
check validate-missing-file spec validate no/such/spec.json
check render-slurm-conf spec render examples/cluster.json
check render-slurm-conf-maps spec render examples/cluster-config-maps.json --format=slurm.conf
check render-gres-conf spec render examples/cluster.json --format gres.conf
check render-show-config spec render examples/cluster.json --format show-config
check render-json spec render examples/cluster-config-maps.json --format json
check render-bad-format spec render examples/cluster.json --format yaml
check render-invalid-spec spec render "$specs/bad-structure.json"
check diff-same spec diff examples/cluster.json examples/cluster.json
check diff-allowed spec diff examples/cluster.json "$specs/update-allowed.json"
check diff-refused spec diff examples/cluster.json "$specs/update-refused.json"
check diff-config-allowed spec diff --allow-config-changes examples/cluster.json \
  "$specs/update-refused.json"
check usage-no-args
check usage-unknown-command launch
check usage-spec-no-args spec

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
  echo "updated $cases golden files in $golden"
  exit 0
fi
echo "$((cases - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
