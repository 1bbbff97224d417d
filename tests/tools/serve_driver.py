#!/usr/bin/env python3
"""Drives `schedk serve` as a cluster master would: a real subprocess behind
pipes, one request at a time, reading each reply up to its terminal line.

The driver loads a generated cluster's configuration, then feeds its jobs in
with `add job` while it schedules with commit=assume, confirms some starts
(`run`), refuses others (`fail`), holds and releases jobs, finishes running
ones and advances the clock. It keeps its own model of what that did, one line
per task. At the end it writes that model as a snapshot and checks that
  * a fresh `schedk serve` that loads it reports the same digest, and
  * `schedk schedule` on it makes exactly the decisions the session makes.
Only the standard library is used. Usage: serve_driver.py SCHEDK_BINARY
"""
import os
import random
import re
import subprocess
import sys
import tempfile

TERMINAL = ("hello", "ok", "done", "err", "bye")


class Serve:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.counter = 0

    def request(self, text, body=None):
        """Sends one request (and its body lines) and returns its reply lines."""
        self.counter += 1
        rid = "r%d" % self.counter
        self.proc.stdin.write("%s %s\n" % (rid, text))
        if body is not None:
            self.proc.stdin.write(body)
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("serve ended during %r" % text)
            line = line.rstrip("\n")
            lines.append(line)
            words = line.split(" ")
            if words[0] in TERMINAL:
                if len(words) < 2 or words[1] != rid:
                    raise RuntimeError("reply %r does not answer %s" % (line, rid))
                return lines

    def ok(self, text, body=None):
        lines = self.request(text, body)
        if not lines[-1].startswith(("ok ", "hello ", "done ")):
            raise RuntimeError("%r refused: %s" % (text, lines[-1]))
        return lines

    def close(self):
        self.request("quit")
        self.proc.stdin.close()
        if self.proc.wait(timeout=60) != 0:
            raise RuntimeError("serve exited with %d" % self.proc.returncode)


def split_job(line):
    """('job', id, {key: value}) for a generated job line (no quoted values)."""
    words = line.split()
    keys = dict(w.split("=", 1) for w in words[2:])
    return words[1], keys


def tasks_of(job_id):
    if "." not in job_id:
        return int(job_id), [None]
    number, rng = job_id.split(".", 1)
    step = 1
    if ":" in rng:
        rng, step = rng.split(":")
        step = int(step)
    first, _, last = rng.partition("-")
    last = last or first
    return int(number), list(range(int(first), int(last) + 1, step))


RUNNING_KEYS = ("state", "start", "granted", "master")


class Model:
    """What the driver believes the state is: per task its state and placement."""

    def __init__(self, config, now):
        self.config = config  # snapshot lines without `now` and jobs
        self.now = now
        self.jobs = {}  # number -> {"keys": {...}, "array": bool, "tasks": {task: dict}}

    def add(self, line):
        job_id, keys = split_job(line)
        number, tasks = tasks_of(job_id)
        job_keys = {k: v for k, v in keys.items() if k not in RUNNING_KEYS}
        state = {"state": keys.get("state", "qw")}
        for k in ("start", "granted"):
            if k in keys:
                state[k] = keys[k]
        entry = self.jobs.setdefault(number, {"keys": job_keys, "array": tasks != [None], "tasks": {}})
        for t in tasks:
            entry["tasks"][t] = dict(state)

    def snapshot(self):
        lines = ["schedk-snapshot 1", "now %d" % self.now] + self.config
        for number in sorted(self.jobs):
            entry = self.jobs[number]
            for t, task in sorted(entry["tasks"].items(), key=lambda kv: kv[0] or 0):
                words = ["job", "%d.%d" % (number, t) if entry["array"] else str(number)]
                words += ["%s=%s" % kv for kv in entry["keys"].items()]
                if task["state"] != "qw":
                    words.append("state=" + task["state"])
                if task["state"] in ("r", "s"):
                    words += ["start=" + task["start"], "granted=" + task["granted"]]
                    if task.get("assumed"):
                        words.append("assumed=y")
                lines.append(" ".join(words))
        return "\n".join(lines) + "\n"


def task_ref(number, task):
    return "%d.%d" % (number, task) if task is not None else str(number)


def without_ids(lines, rid):
    out = []
    for line in lines:
        words = line.split(" ")
        if len(words) > 1 and words[1] == rid:
            del words[1]
        out.append(re.sub(r" ms=\d+", " ms=_", " ".join(words)))
    return out


def main():
    binary = sys.argv[1]
    rng = random.Random(20261122)
    generated = subprocess.run([binary, "generate", "--jobs", "600", "--hosts", "12", "--seed", "5",
                                "--max-reservation", "20"], check=True, capture_output=True, text=True).stdout
    config, jobs, now = [], [], None
    for line in generated.splitlines():
        if line.startswith("job "):
            jobs.append(line)
        elif line.startswith("now "):
            now = int(line.split()[1])
        elif line.strip() and not line.startswith("#") and not line.startswith("schedk-snapshot"):
            config.append(line)
    model = Model(config, now)
    serve = Serve(binary)
    serve.ok("hello proto=1 client=serve_driver")
    serve.ok("snapshot", "\n".join(["schedk-snapshot 1", "now %d" % now] + config) + "\nend snapshot\n")

    schedules = 0
    for i, line in enumerate(jobs):
        serve.ok("add " + line)
        model.add(line)
        if i % 75 != 74:
            continue
        # An interval: schedule with assume, then the master's answers.
        lines = serve.ok("schedule commit=assume")
        schedules += 1
        for record in lines:
            words = record.split(" ")
            if words[0] != "start":
                continue
            number, _, task = words[2].partition(".")
            number, task = int(number), int(task)
            entry = model.jobs[number]
            key = task if entry["array"] else None
            granted = [w for w in words if w.startswith("granted=")][0][len("granted="):]
            entry["tasks"][key].update(state="r", start=str(model.now), granted=granted, assumed=True)
            ref = task_ref(number, key)
            roll = rng.random()
            if roll < 0.6:
                serve.ok("run " + ref)
                entry["tasks"][key]["assumed"] = False
            elif roll < 0.8:
                serve.ok('fail %s "prolog failed on the node"' % ref)
                entry["tasks"][key] = {"state": "qw"}
        # Some running tasks finish; some pending jobs are held and released.
        running = [(n, t) for n, e in model.jobs.items() for t, s in e["tasks"].items()
                   if s["state"] == "r" and not s.get("assumed")]
        for number, task in rng.sample(running, min(8, len(running))):
            serve.ok("finish " + task_ref(number, task))
            del model.jobs[number]["tasks"][task]
            if not model.jobs[number]["tasks"]:
                del model.jobs[number]
        pending = [n for n, e in model.jobs.items() if not e["array"] and e["tasks"][None]["state"] == "qw"]
        for number in rng.sample(pending, min(3, len(pending))):
            serve.ok("hold %d" % number)
            model.jobs[number]["tasks"][None]["state"] = "hqw"
        held = [n for n, e in model.jobs.items() if not e["array"] and e["tasks"][None]["state"] == "hqw"]
        for number in held[:1]:
            serve.ok("release %d" % number)
            model.jobs[number]["tasks"][None]["state"] = "qw"
        serve.ok("advance 300")
        model.now += 300

    # A request that must be refused changes nothing.
    refused = serve.request("run 1 granted=nosuch.q@node1:1")[-1]
    assert refused.startswith("err "), refused

    digest = serve.ok("digest")[-1]
    decisions = serve.ok("schedule")
    serve.close()

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.snap")
        with open(path, "w") as f:
            f.write(model.snapshot())
        fresh = Serve(binary)
        fresh.ok("hello proto=1")
        fresh.ok("load " + path)
        fresh_digest = fresh.ok("digest")[-1]
        fresh.close()
        batch = subprocess.run([binary, "schedule", path], check=True, capture_output=True, text=True).stdout

    hash_of = lambda line: re.search(r"hash=(\w+)", line).group(1)
    tasks_of_digest = lambda line: re.search(r"tasks=(\d+)", line).group(1)
    if hash_of(digest) != hash_of(fresh_digest):
        print("digest of the session: %s\ndigest of the model:   %s" % (digest, fresh_digest))
        return 1
    session_records = without_ids(decisions, decisions[-1].split(" ")[1])
    batch_records = [re.sub(r" ms=\d+", " ms=_", line) for line in batch.splitlines()]
    if session_records != batch_records:
        for a, b in zip(session_records, batch_records):
            if a != b:
                print("session: %s\nbatch:   %s" % (a, b))
                break
        print("session %d records, batch %d" % (len(session_records), len(batch_records)))
        return 1
    print("serve_driver: %d schedules, %s tasks, digest %s, %d decisions equal to schedk schedule"
          % (schedules, tasks_of_digest(digest), hash_of(digest), len(batch_records)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
