"""A small Toil workflow for tests/integration/workflow_toil.sh.

Its root job starts one child job per number in --numbers; each child writes a line naming the
Slurm job it ran in to OUT_DIR/out-<n>.txt and returns 2 * n, sleeping --sleep seconds first.
The number 99 makes its child fail. The leader prints "result [...]".
"""
import os
import sys
import time

from toil.common import Toil
from toil.job import Job


def work(job, n, out_dir, sleep):
    time.sleep(sleep)
    with open(os.path.join(out_dir, f"out-{n}.txt"), "w") as out:
        out.write(f"{n} {os.environ.get('SLURM_JOB_ID')}\n")
    if n == 99:
        raise RuntimeError("failing on purpose")
    return n * 2


def root(job, numbers, out_dir, sleep):
    return [
        job.addChildJobFn(work, n, out_dir, sleep, cores=1, memory="100M", disk="10M").rv()
        for n in numbers
    ]


if __name__ == "__main__":
    parser = Job.Runner.getDefaultArgumentParser()
    parser.add_argument("--numbers", default="1,2")
    parser.add_argument("--out", required=True)
    parser.add_argument("--sleep", type=float, default=0)
    options = parser.parse_args()
    numbers = [int(x) for x in options.numbers.split(",")]
    with Toil(options) as toil:
        result = toil.start(
            Job.wrapJobFn(root, numbers, options.out, options.sleep, cores=1, memory="100M",
                          disk="10M"))
    print("result", result)
    sys.stdout.flush()
