#!/usr/bin/env python3
"""Captures what real sreport prints for tests/golden/cmd-anchor-sreport.cmds.

Runs each command line of cmd-anchor-sreport.cmds with the real sreport of the Slurm 22.05
reference cluster (../anchors/slurm, as root) and writes the transcript that
CommandsGoldenTest.SreportMatchesTheReference compares Gantry's sreport with:
tests/golden/cmd-anchor-sreport.txt. The fake controller of that test holds the reference's jobs
of 2026-12-03 07:00-10:00; capturing again only makes sense against that same database.

usage: sreport_anchor_capture.py ANCHOR_DIR   (the folder with env.sh)
"""
import os
import subprocess
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    etc = subprocess.run(["bash", "-c", '. "$1/env.sh"; echo "$SLURM_ETC"', "sh", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout.strip()
    env["SLURM_CONF"] = etc + "/slurm.conf"
    out = []
    with open(os.path.join(here, "cmd-anchor-sreport.cmds")) as cmds:
        for line in cmds:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            command, stdin = line, ""
            if " <<< '" in line:
                command, rest = line.split(" <<< '", 1)
                stdin = rest[:-1].replace("\\n", "\n")
            run = subprocess.run(
                ["bash", "-c", 'exec -a sreport /usr/bin/sreport "$@"', "sreport"]
                + command.split()[1:], input=stdin.encode(), capture_output=True, env=env)
            out.append("### as root: %s\n--- stdout:\n%s--- stderr:\n%s--- exit code: %d\n\n" %
                       (line, run.stdout.decode(), run.stderr.decode(), run.returncode))
    with open(os.path.join(here, "cmd-anchor-sreport.txt"), "w") as f:
        f.write("".join(out))


if __name__ == "__main__":
    main()
