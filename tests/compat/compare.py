#!/usr/bin/env python3
"""Compares what schedk computed with what the real Grid Engine printed.

  compare.py priorities QSTAT_XML SCHEDK_JSONL
      Every priority column of `qstat -u '*' -g d -xml -pri -urg -ext` (one
      row per array task) against
      `schedk priorities --format jsonl`, to the digit qstat prints: the
      normalised values and the share with 5 decimals (qstat's %.5f), the
      urgency contributions rounded to whole numbers (%.0f), the tickets
      truncated to them.
  compare.py monitor CELL_SECTION SCHEDK_SECTION
      The MONITOR lines of one scheduler run, in content and in order, but
      for the order within one booking's quota (L) lines: the cell writes
      them in the order its scheduler's mirror holds the quota sets, which
      moves a set to the end whenever the qmaster changes its usage, a
      history no snapshot holds; schedk writes them in set order.
  compare.py starts CELL_SNAPSHOT SCHEDK_SCHEDULE TIME
      The jobs the cell started at TIME (an import made after that run: the
      tasks whose start= is TIME, with their granted queue instances and
      master queue) against schedk's `start` records.

Prints one line per difference and exits 1 when there is any; exits 0 and
prints the number of values compared otherwise.
"""
import json
import math
import sys
import xml.etree.ElementTree as ET

# qstat XML element -> (schedk jsonl key, how qstat prints it)
PRIORITY_COLUMNS = [
    ("JAT_prio", "prio", "f5"),
    ("JAT_ntix", "ntckts", "f5"),
    ("JB_nppri", "npprior", "f5"),
    ("JB_nurg", "nurg", "f5"),
    ("JB_rrcontr", "rrcontr", "f0"),
    ("JB_wtcontr", "wtcontr", "f0"),
    ("JB_dlcontr", "dlcontr", "f0"),
    ("JB_priority", "ppri", "int"),
    ("tickets", "tckts", "int"),
    ("otickets", "otckt", "int"),
    ("ftickets", "ftckt", "int"),
    ("stickets", "stckt", "int"),
    ("JAT_share", "share", "f5"),
]


def printed(value, how):
    if how == "f5":
        return "%.5f" % value
    if how == "f0":
        return "%.0f" % value
    return "%d" % math.trunc(value)


def first_task(tasks):
    """qstat shows a pending range's template values: those of its first task."""
    if not tasks:
        return 1
    return int(tasks.split(",")[0].split("-")[0].split(":")[0])


def compare_priorities(qstat_path, jsonl_path):
    rows = {}
    with open(jsonl_path) as f:
        for line in f:
            r = json.loads(line)
            rows[(r["job"], r["task"])] = r
    differences, compared = [], 0
    root = ET.parse(qstat_path).getroot()
    for job in root.iter("job_list"):
        number = int(job.findtext("JB_job_number"))
        task = first_task(job.findtext("tasks") or "")
        state = job.findtext("state") or ""
        key = (number, task)
        if key not in rows:
            differences.append("job %d.%d (%s): in qstat, not in schedk's output" % (number, task, state))
            continue
        r = rows[key]
        for element, column, how in PRIORITY_COLUMNS:
            text = job.findtext(element)
            if text is None:
                continue
            compared += 1
            ours = printed(r[column], how)
            if ours != text.strip():
                differences.append("job %d.%d (%s) %s: qstat %s, schedk %s (%r)" %
                                   (number, task, state, column, text.strip(), ours, r[column]))
    return differences, compared


def monitor_lines(path):
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("::::::::")]
    return sort_quota_runs(lines)


def sort_quota_runs(lines):
    """Sorts each run of consecutive L lines of one booking (job, task, state,
    start, duration and level equal)."""
    def run_key(line):
        parts = line.split(":")
        return parts[:6] if len(parts) > 5 and parts[5] == "L" else None
    out, i = [], 0
    while i < len(lines):
        j = i + 1
        key = run_key(lines[i])
        while key is not None and j < len(lines) and run_key(lines[j]) == key:
            j += 1
        out.extend(sorted(lines[i:j]) if key is not None else lines[i:j])
        i = j
    return out


def compare_monitor(cell_path, schedk_path):
    cell, ours = monitor_lines(cell_path), monitor_lines(schedk_path)
    differences = []
    for i in range(max(len(cell), len(ours))):
        a = cell[i] if i < len(cell) else "(none)"
        b = ours[i] if i < len(ours) else "(none)"
        if a != b:
            differences.append("MONITOR line %d: cell %s | schedk %s" % (i + 1, a, b))
    return differences, len(cell)


def fields(line):
    return dict(token.split("=", 1) for token in line.split()[2:] if "=" in token)


def task_id(text):
    return text if "." in text else text + ".1"


def placement(granted, master=None):
    """The granted instances (sorted) and the master queue: `master=` where the
    import gives it, else the first granted, as schedk grants the master first."""
    grants = granted.split(",")
    return sorted(grants), master or grants[0].rsplit(":", 1)[0]


def compare_starts(snapshot_path, schedule_path, at):
    cell, ours = {}, {}
    with open(snapshot_path) as f:
        for line in f:
            if line.startswith("job ") and fields(line).get("start") == at:
                cell[task_id(line.split()[1])] = placement(fields(line)["granted"], fields(line).get("master"))
    with open(schedule_path) as f:
        for line in f:
            if line.startswith("start "):
                ours[task_id(line.split()[1])] = placement(fields(line)["granted"])
    differences = []
    for job in sorted(set(cell) | set(ours)):
        a, b = cell.get(job, "not started"), ours.get(job, "not started")
        if a != b:
            differences.append("job %s: cell %s | schedk %s" % (job, a, b))
    return differences, len(cell)


MODES = {
    "priorities": (compare_priorities, "values agree"),
    "monitor": (compare_monitor, "MONITOR lines agree"),
    "starts": (compare_starts, "starts agree"),
}


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    compare, agree = MODES[sys.argv[1]]
    differences, compared = compare(*sys.argv[2:])
    for d in differences:
        print("  " + d)
    if differences:
        print("  %d differences" % len(differences))
        sys.exit(1)
    print("  %d %s" % (compared, agree))


if __name__ == "__main__":
    main()
