#!/usr/bin/env python3
"""Stage scaling of a schedk command, measured and predicted by Amdahl's law.

Runs `schedk COMMAND --profile --threads N SNAPSHOT` for each thread count,
alternating the counts, and takes each stage's median wall time over the runs.
From the 1- and 2-thread medians, Amdahl's law T(n) = T1 * (s + (1 - s) / n)
gives each stage's serial fraction s = 2 * T2 / T1 - 1 (clamped to [0, 1]) and
its predicted time on `--predict` threads; the stages' sum is the command's.
Where more thread counts are measured (on a host with that many cores), they
are printed beside the prediction.

  bench/scaling.py build/tools/schedk schedule goal.snap --runs 5
  bench/scaling.py build/tools/schedk priorities big.snap --threads 1 2 4 8 16 --args "--format jsonl"
"""

import argparse
import re
import shlex
import statistics
import subprocess
import sys

PROFILE_LINE = re.compile(r"^profile: (.+?)\s+([0-9.]+) ms$")


def profile(schedk, command, snapshot, threads, extra):
    """One run: {stage: wall ms} from its --profile lines."""
    run = subprocess.run([schedk, command, "--profile", "--threads", str(threads), *extra, snapshot],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"scaling.py: {command} --threads {threads} failed:\n{run.stderr}")
    stages = {}
    for line in run.stderr.splitlines():
        match = PROFILE_LINE.match(line)
        if match:
            stages[match.group(1)] = float(match.group(2))
    return stages


def amdahl(t1, t2, n):
    """Serial fraction from the 1- and 2-thread times, and the predicted time on n threads."""
    if t1 <= 0:
        return 1.0, t1
    serial = min(1.0, max(0.0, 2.0 * t2 / t1 - 1.0))
    return serial, t1 * (serial + (1.0 - serial) / n)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("schedk")
    parser.add_argument("command", choices=["schedule", "priorities"])
    parser.add_argument("snapshot")
    parser.add_argument("--runs", type=int, default=5, help="runs per thread count (default 5)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts (1 and 2 always)")
    parser.add_argument("--predict", type=int, default=16, help="threads to predict for (default 16)")
    parser.add_argument("--args", default="", help="more options for the command, e.g. \"--format jsonl\"")
    parser.add_argument("--skip", nargs="*", default=["read snapshot", "write"],
                        help="stages left out of the total (default: reading and writing)")
    args = parser.parse_args()
    counts = sorted(set(args.threads) | {1, 2})

    times = {n: {} for n in counts}  # threads -> stage -> [ms]
    order = []
    for _ in range(args.runs):
        for n in counts:
            for stage, ms in profile(args.schedk, args.command, args.snapshot, n, shlex.split(args.args)).items():
                times[n].setdefault(stage, []).append(ms)
                if stage not in order:
                    order.append(stage)

    median = {n: {s: statistics.median(v) for s, v in times[n].items()} for n in counts}
    measured = [n for n in counts if n > 2]
    header = f"{'stage':32} {'1 thread':>10} {'2':>10} {'serial':>7} {'pred ' + str(args.predict):>10}"
    header += "".join(f" {n:>10}" for n in measured)
    print(f"{args.command} {args.snapshot}: medians of {args.runs} runs, ms")
    print(header)
    total = {n: 0.0 for n in counts}
    predicted_total = 0.0
    for stage in order:
        t1, t2 = median[1].get(stage, 0.0), median[2].get(stage, 0.0)
        serial, predicted = amdahl(t1, t2, args.predict)
        row = f"{stage:32} {t1:10.1f} {t2:10.1f} {serial:7.2f} {predicted:10.1f}"
        row += "".join(f" {median[n].get(stage, 0.0):10.1f}" for n in measured)
        print(row)
        if stage not in args.skip:
            predicted_total += predicted
            for n in counts:
                total[n] += median[n].get(stage, 0.0)
    serial, _ = amdahl(total[1], total[2], args.predict)
    label = "total" + (f" ({', '.join(args.skip)} left out)" if args.skip else "")
    row = f"{label:32} {total[1]:10.1f} {total[2]:10.1f} {serial:7.2f}"
    row += f" {predicted_total:10.1f}" + "".join(f" {total[n]:10.1f}" for n in measured)
    print(row)


if __name__ == "__main__":
    main()
