#!/usr/bin/env bash
# The Debian packages: cpack builds gantry-client, gantry-agent, gantry-controller and gantry;
# they install into a fresh root (dpkg --root, the maintainer scripts acting on DPKG_ROOT): the
# gantry system user and its home, conffiles, links that resolve; systemd-analyze verify passes
# on the three units there; and the installed programs run a cluster and a job.
# usage: packages.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (dpkg into another root)"; exit 77; }
build=$(cd "$BIN/.." && pwd)
[ -f "$build/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $build"

cpack -G DEB -B "$WORK/pkg" --config "$build/CPackConfig.cmake" >"$WORK/cpack.log" 2>&1 ||
  { tail -20 "$WORK/cpack.log"; fail "cpack"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")/\1/p' "$build/CPackConfig.cmake")
for deb in gantry-client_${version}_amd64 gantry-agent_${version}_amd64 \
           gantry-controller_${version}_amd64 gantry_${version}_all; do
  [ -f "$WORK/pkg/$deb.deb" ] || fail "no $deb.deb: $(ls "$WORK/pkg")"
done
expect "the whole" "gantry-controller (= $version), gantry-agent (= $version), gantry-client (= $version)" \
  "$(dpkg-deb -f "$WORK/pkg/gantry_${version}_all.deb" Depends)"
expect "Slurm's own commands" "slurm-client" \
  "$(dpkg-deb -f "$WORK/pkg/gantry-client_${version}_amd64.deb" Conflicts)"
dpkg-deb -f "$WORK/pkg/gantry-controller_${version}_amd64.deb" Depends | grep -q "libsqlite3-0" ||
  fail "gantry-controller's shared libraries are not in its Depends"

# A fresh root with an empty dpkg database.
R=$WORK/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers" "$R/etc"
touch "$R/var/lib/dpkg/status"
host_gantry=$(grep -c '^gantry:' /etc/passwd)
dpkg --root="$R" --force-script-chrootless --force-depends --log=/dev/null \
  -i "$WORK"/pkg/*.deb >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log"; fail "dpkg -i"; }
expect "installed" "ii gantry
ii gantry-agent
ii gantry-client
ii gantry-controller" "$(dpkg --root="$R" -l 'gantry*' | awk '/^ii/ { print $1, $2 }')"
grep -q '^gantry:x:[0-9]*:[0-9]*:Gantry controller:/var/lib/gantry:' "$R/etc/passwd" ||
  fail "no gantry user in the root: $(cat "$R/etc/passwd" 2>&1)"
expect "this host's users untouched" "$host_gantry" "$(grep -c '^gantry:' /etc/passwd)"
uid=$(awk -F: '$1 == "gantry" { print $3 }' "$R/etc/passwd")
expect "its home" "$uid" "$(stat -c %u "$R/var/lib/gantry")"
dpkg --root="$R" --status gantry-controller | grep -q "^ /etc/gantry/gantryd.env " ||
  fail "gantryd.env is not a conffile"
dpkg --root="$R" --status gantry-agent | grep -q "^ /etc/gantry/agent.env " ||
  fail "agent.env is not a conffile"
for link in usr/bin/gantry usr/bin/sbatch usr/bin/squeue usr/sbin/gantryd usr/sbin/gantry-agent \
            usr/sbin/gantry-restd usr/lib/gantry/bin/sbatch; do
  [ -x "$R/$link" ] || fail "$link does not resolve: $(ls -l "$R/$link" 2>&1)"
done
expect "the installed gantry" "gantry $version" "$("$R/usr/bin/gantry" version)"

# The units, against this host's systemd units (copied into the root for their targets).
cp -rn /lib/systemd/system/. "$R/usr/lib/systemd/system/" 2>/dev/null || true
out=$(systemd-analyze verify --root="$R" gantryd.service gantry-agent.service \
  gantry-restd.service 2>&1) || fail "systemd-analyze verify: $out"
expect "systemd-analyze verify says nothing" "" "$out"

# The installed programs find each other: a local cluster from them, and a job.
export GANTRY_HOME=$WORK/home
"$R/usr/bin/gantry" up --spec "$SRC/examples/demo.json" >"$WORK/up.out" 2>&1 ||
  { cat "$WORK/up.out"; fail "gantry up from the packages"; }
STATE=$GANTRY_HOME/demo
eval "$("$R/usr/bin/gantry" env)"
expect "sbatch" "$R/usr/lib/gantry/bin/sbatch" "$(command -v sbatch)"
pgrep -f "^$R/usr/lib/gantry/bin/gantryd " >/dev/null || fail "gantryd is not the installed one"
mkdir -p "$WORK/job" && cd "$WORK/job"
sbatch --wait -o out.txt --wrap 'echo from the package' >/dev/null || fail "sbatch --wait"
expect "the job's output" "from the package" "$(cat out.txt)"
"$R/usr/bin/gantry" down >/dev/null
echo PASS
