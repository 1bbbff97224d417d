#!/usr/bin/env python3
"""Submits N pending jobs to a live Grid Engine cell through DRMAA, as the
calling user, for bench/ge_cell_bench.sh. One DRMAA session submits hundreds
of jobs a second where one qsub process per job manages a few. Every job asks
for the global consumable `block` (capacity 0 in tests/compat/cell.sh), so it
stays pending without a hold. The jobs cycle through 150 run times (each its
own resource category, as a site's varied requests make) and a few POSIX
priorities.
Usage: ge_fill.py N   (needs python3-drmaa and gridengine-drmaa1.0)"""
import sys

import drmaa

SHAPES = [f"-p {-(i % 7) * 10} -l h_rt=0:{i + 1}:00" for i in range(150)]


def main():
    count = int(sys.argv[1])
    with drmaa.Session() as session:
        templates = []
        for shape in SHAPES:
            template = session.createJobTemplate()
            template.remoteCommand = "/bin/true"
            template.nativeSpecification = f"-b y -o /dev/null -j y -w n -l block=1 {shape}"
            templates.append(template)
        for i in range(count):
            session.runJob(templates[i % len(templates)])


if __name__ == "__main__":
    main()
