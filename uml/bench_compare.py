#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The page-table benchmark on ./linux and on x86-64, side by side.

usage: bench_compare.py UML_CSV X86_CSV

Both files are uml/bench.sh's pgtables.csv (tests/bench_pgtables.c's
"bench-csv: " lines).  One row per N of the sparse runs (one page per
2 MiB of a GiB touched): page tables after - before for mshare and for the
memfd on each target, and the fault rate.  A target whose file is missing
is named and its columns are left out; a row N only one target has is
printed with "-" for the other.
"""
import csv
import os
import sys

TARGETS = ("./linux", "x86-64")


def sparse_runs(path):
    """{(kind, n): row} of the sparse runs in PATH, or None if no file."""
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return {(r["kind"], int(r["n"])): r
                for r in csv.DictReader(f) if r["touch"] == "sparse"}


def cell(runs, kind, n, field):
    row = runs.get((kind, n)) if runs is not None else None
    return row[field] if row else "-"


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    shown = []
    for name, path in zip(TARGETS, argv[1:]):
        runs = sparse_runs(path)
        if runs is None:
            print(f"bench: no {name} run ({path}): its columns are left out")
        else:
            shown.append((name, runs))
    if not shown:
        return
    ns = sorted({n for _, r in shown for _, n in r})
    head = ["N"]
    for name, _ in shown:
        head += [f"{name} mshare kB", f"{name} memfd kB",
                 f"{name} mshare faults/s"]
    print("bench: page tables after - before, one page per 2 MiB of a GiB:")
    print(" | ".join(head))
    for n in ns:
        line = [str(n)]
        for _, r in shown:
            line += [cell(r, "mshare", n, "pt_kb"),
                     cell(r, "memfd", n, "pt_kb"),
                     cell(r, "mshare", n, "faults_per_s")]
        print(" | ".join(line))


if __name__ == "__main__":
    main(sys.argv)
