#!/usr/bin/env python3
"""serve_latency.py: `schedule` latency of `schedk serve` as a master sees it,
through the binary's pipes (Python 3 standard library only).

    bench/serve_latency.py SCHEDK SNAPSHOT [ROUNDS]

Sends the snapshot's configuration inline, then every job as an `add job`
line, then ROUNDS times (default 5): a 1% change (half of it `del job` of
random pending jobs, half `add job` of new ones), and `schedule commit=none`,
timed from the request written to its `done` line read. A reader thread takes
the replies in blocks of up to 1 MB as they come, as a master would.
"""
import os
import random
import subprocess
import sys
import threading
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, snapshot = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    serve = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    wanted = {"marker": None, "tail": b"", "seen": None}
    arrived = threading.Event()

    def read_replies():
        while True:
            block = os.read(serve.stdout.fileno(), 1 << 20)
            if not block:
                arrived.set()
                return
            marker = wanted["marker"]
            if marker is None:
                continue
            text = wanted["tail"] + block
            at = text.find(marker)
            if at < 0:
                wanted["tail"] = text[-200:]
                continue
            end = text.find(b"\n", at + 1)
            wanted["seen"] = (time.time(), text[at + 1:end if end >= 0 else len(text)].decode())
            wanted["marker"] = None
            arrived.set()

    threading.Thread(target=read_replies, daemon=True).start()

    def request(text, terminal):
        """Writes `text`; returns (seconds, line) once the line starting with `terminal` is read."""
        arrived.clear()
        wanted.update(marker=("\n" + terminal).encode(), tail=b"\n", seen=None)
        started = time.time()
        data = memoryview(text.encode())
        while data:
            data = data[serve.stdin.write(data):]
        arrived.wait()
        if wanted["seen"] is None:
            sys.exit("serve_latency: the session ended")
        return wanted["seen"][0] - started, wanted["seen"][1]

    lines = open(snapshot).read().split("\n")
    config = [l for l in lines if not l.startswith("job ") and not l.startswith("schedk-snapshot")]
    jobs = [l for l in lines if l.startswith("job ")]
    request("h hello proto=1\n", "hello h")
    print(request("c snapshot\nschedk-snapshot 1\n" + "\n".join(config) + "\nend snapshot\n", "ok c")[1])
    seconds, _ = request("".join("a%d add %s\n" % (i, l) for i, l in enumerate(jobs)) + "z ping\n", "ok z")
    print("ingest: %d add job lines in %.2f s" % (len(jobs), seconds))
    pending = [int(l.split()[1].split(".")[0]) for l in jobs if " state=r" not in l]
    next_number = max(int(l.split()[1].split(".")[0]) for l in jobs) + 1
    random.seed(3)
    for round_number in range(rounds):
        change = []
        for i in range(len(pending) // 200):
            change.append("d%d del job %d\n" % (i, pending.pop(random.randrange(len(pending)))))
            change.append("n%d add job %d owner=user%d submit=1798761000 l_hard=h_rt=3600\n" % (i, next_number, i % 50))
            pending.append(next_number)
            next_number += 1
        request("".join(change) + "z ping\n", "ok z")
        seconds, line = request("s schedule commit=none\n", "done s")
        print("round %d: schedule request %.1f ms (%s)" % (round_number, seconds * 1000, line))
    request("q quit\n", "bye q")
    serve.wait()


if __name__ == "__main__":
    main()
