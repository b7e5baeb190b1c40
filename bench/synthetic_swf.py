#!/usr/bin/env python3
"""Writes a synthetic Standard Workload Format trace (deterministic: a fixed seed) for
bench/sim_bench.sh: JOBS jobs on a machine of NODES nodes, arriving as a Poisson stream sized
to keep it about LOAD busy. Sizes: 1-64 nodes, small ones most often (powers of two, as real
traces have them); run times log-uniform from 1 minute to 12 hours; each requested time is the
run time rounded up to the hour (users ask for more than they use). 100 users in 10 groups.

usage: synthetic_swf.py JOBS NODES [LOAD] > trace.swf"""
import math
import random
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    jobs, nodes = int(sys.argv[1]), int(sys.argv[2])
    load = float(sys.argv[3]) if len(sys.argv) > 3 else 0.85
    rng = random.Random(26)
    sizes = [1, 1, 1, 1, 2, 2, 4, 4, 8, 16, 32, 64]
    mean_size = sum(sizes) / len(sizes)
    lo, hi = math.log(60), math.log(12 * 3600)
    mean_run = (12 * 3600 - 60) / (hi - lo)  # log-uniform's mean
    gap = mean_size * mean_run / (nodes * load)  # mean seconds between arrivals
    out = sys.stdout
    out.write("; Version: 2.2\n; Computer: synthetic\n; MaxNodes: %d\n; MaxProcs: %d\n"
              "; Note: bench/synthetic_swf.py %d %d %.2f\n" % (nodes, nodes, jobs, nodes, load))
    t = 0.0
    for i in range(1, jobs + 1):
        t += rng.expovariate(1.0 / gap)
        size = rng.choice(sizes)
        run = int(math.exp(rng.uniform(lo, hi)))
        asked = int(math.ceil(run / 3600.0)) * 3600
        user = rng.randrange(100)
        # job submit wait run procs cpu mem req_procs req_time req_mem status user group
        # exe queue partition preceding think
        out.write("%d %d -1 %d %d -1 -1 %d %d -1 1 %d %d -1 -1 -1 -1 -1\n" %
                  (i, int(t), run, size, size, asked, user + 1, user // 10 + 1))


if __name__ == "__main__":
    main()
