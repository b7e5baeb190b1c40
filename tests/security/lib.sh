# Shared helpers for the security tests: a real local cluster (tests/integration/lib.sh) and two
# unix users made for the test, alice and bob, who attack each other and the daemons.
# Run as root (they make users); skipped (77) otherwise.
#
# usage in a test: source lib.sh BIN_DIR SOURCE_ROOT [SPEC]
# Provides what integration/lib.sh does, plus $ALICE $BOB (user names), as USER CMD... (runs CMD
# as USER with the cluster's environment, in $WORK/USER or $WORK), gantryd_pid, gantryd_rss_kib,
# expect_alive (fails unless gantryd still runs), $WORK/frame.py (below).
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh" "$@"
ALICE=gsa$$
BOB=gsb$$
useradd -M -d "$WORK" -s /bin/bash "$ALICE" || fail "useradd $ALICE"
useradd -M -d "$WORK" -s /bin/bash "$BOB" || { userdel "$ALICE"; fail "useradd $BOB"; }
# cleanup reads the script's exit status from $?: keep it past userdel.
# $AT_EXIT: more commands for the end (a test's groups...).
AT_EXIT=
trap 'rc=$?; pkill -9 -u "$ALICE" 2>/dev/null; pkill -9 -u "$BOB" 2>/dev/null;
      userdel "$ALICE" 2>/dev/null; userdel "$BOB" 2>/dev/null; eval "$AT_EXIT"; (exit $rc);
      cleanup' EXIT
for u in "$ALICE" "$BOB"; do
  mkdir -p "$WORK/$u"
  chown "$u" "$WORK/$u"
done

as() {
  local user=$1
  shift
  local dir=$WORK/$user
  [ -d "$dir" ] || dir=$WORK
  (cd "$dir" && runuser -u "$user" -- env PATH="$PATH" GANTRY_CONF="$GANTRY_CONF" "$@")
}

gantryd_pid() { cat "$STATE/run/gantryd.pid"; }
gantryd_rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$(gantryd_pid)/status"; }
expect_alive() {
  kill -0 "$(gantryd_pid)" 2>/dev/null || fail "gantryd died: $(tail -5 "$STATE/logs/gantryd.log")"
  squeue >/dev/null || fail "squeue after the attack"
}

# $WORK/frame.py SOCKET HEX (run it as any user): writes the bytes HEX (e.g. 0900000005...) to
# the unix socket and prints the reply frame as "CODE TEXT" (CODE 0: "0 BODY_BYTES"), or
# "closed" when the server closed the connection instead.
cat >"$WORK/frame.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(bytes.fromhex(sys.argv[2]))
s.settimeout(10)
head = b""
while len(head) < 5:
    chunk = s.recv(5 - len(head))
    if not chunk:
        print("closed")
        sys.exit(0)
    head += chunk
length, code = struct.unpack("<IB", head)
body = b""
while len(body) < length - 1:
    chunk = s.recv(length - 1 - len(body))
    if not chunk:
        break
    body += chunk
print(code, body.decode(errors="replace") if code else len(body))
PY
chmod 644 "$WORK/frame.py"
