#!/usr/bin/env bash
# H6 and M7: bob could hold every slot of the command socket and pin ~64 MiB of gantryd's memory
# per connection with one 5-byte header each, and exhaust gantryd's descriptors through
# gantryd.sock. Now a connection gets memory as bytes arrive, a uid holds at most 64 connections
# per socket (the next is told why, or reset), and alice is served throughout.
# usage: h6_connection_flood.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
rss_before=$(gantryd_rss_kib)
cat >"$WORK/flood.py" <<'PY'
# flood.py SOCKET COUNT HOLD_SECONDS HEX: opens COUNT connections, sends HEX on each, waits,
# prints how many are still open and how many the server closed or refused.
import socket, sys, time
path, count, hold, payload = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
conns, refused = [], 0
for _ in range(count):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        s.sendall(bytes.fromhex(payload))
    except OSError:
        refused += 1
        continue
    conns.append(s)
time.sleep(hold)
held = 0
for s in conns:
    s.setblocking(False)
    try:
        while s.recv(65536):  # what the server said, up to its end
            pass
    except BlockingIOError:
        held += 1  # nothing more to read and no end: still open
    except OSError:
        pass
print(held, len(conns) - held + refused)
PY
chmod 644 "$WORK/flood.py"
# A request announcing 64 MiB (length 0x04000000, GetJobs), then nothing more.
as "$BOB" python3 "$WORK/flood.py" "$STATE/run/commands.sock" 300 8 0000000405 >"$WORK/flood.out" &
flood=$!
sleep 3
# While bob holds his connections, alice is served, and gantryd did not reserve 64 MiB each.
out=$(as "$ALICE" squeue -h 2>&1) || fail "alice's squeue during the flood: $out"
as "$ALICE" sbatch --parsable --wrap true >/dev/null || fail "alice's sbatch during the flood"
rss=$(gantryd_rss_kib)
echo "gantryd RSS: $rss_before KiB before, $rss KiB during the flood"
[ "$rss" -lt $((rss_before + 200 * 1024)) ] || fail "gantryd grew by $((rss - rss_before)) KiB"
wait "$flood"
read -r held turned_away <"$WORK/flood.out"
echo "commands.sock: bob held $held, turned away $turned_away"
[ "$held" -le 64 ] || fail "bob held $held connections to commands.sock"
[ "$turned_away" -ge 236 ] || fail "only $turned_away of bob's connections were turned away"
# The same against the gRPC socket: connections that say nothing (gRPC waits for the preface).
as "$BOB" python3 "$WORK/flood.py" "$STATE/run/gantryd.sock" 300 3 "" >"$WORK/flood.out"
read -r held turned_away <"$WORK/flood.out"
echo "gantryd.sock: bob held $held, turned away $turned_away"
[ "$held" -le 64 ] || fail "bob held $held connections to gantryd.sock"
expect_alive
echo PASS
