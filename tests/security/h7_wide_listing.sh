#!/usr/bin/env bash
# H7: gantryd built squeue listings with any column width (up to 999,999 each) and no size cap,
# so one `squeue -o` could make it allocate gigabytes. Now gantryd makes only listings of lines
# up to 8 KiB; a wider one is made by the command, in the caller's memory, with the same text.
# usage: h7_wide_listing.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
for _ in 1 2 3; do as "$ALICE" sbatch -H --wrap true >/dev/null || fail "sbatch"; done
rss_before=$(gantryd_rss_kib)
format=$(printf '%%99999i%.0s' $(seq 40))  # 40 columns of 99,999: 4 MB a line
lines=$(as "$BOB" squeue -h -o "$format" | wc -c) || fail "wide squeue"
[ "$lines" = $((3 * (40 * 99999 + 1))) ] || fail "wide listing: $lines bytes"
rss=$(gantryd_rss_kib)
echo "gantryd RSS: $rss_before KiB before, $rss KiB after a 12 MB listing"
[ "$rss" -lt $((rss_before + 8 * 1024)) ] || fail "gantryd grew by $((rss - rss_before)) KiB"
# Usual listings are still made by gantryd, with the same text as the command makes.
expect "narrow listing" "$(GANTRY_SQUEUE_IN_CLIENT=1 squeue -o '%.8i %u')" "$(squeue -o '%.8i %u')"
expect_alive
echo PASS
