#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make pgbench's results: the raw records uml/pgbench/guest.sh printed on
./linux's console (the "pgbench-*" lines, tab-separated; its header lists
them) into

  results.tsv     one row per run: mode, clients, tps, latency, page tables
  table.md        plain against mshare per client count, the checks, times
  pagetables.dat  the plot's data (uml/pgbench/pagetables.gp)

in --out, and table.md on stdout.  Exits 1 when a check failed or no run
has both of its halves, 0 otherwise.

usage: results.py --log CONSOLE_LOG --out DIR
"""

import argparse
import os
import re
import sys

# A record anywhere in a console line: the harness puts "user_program
# guest.sh| " before the program's output, and a kernel message may
# come first.
RECORD = re.compile(r"(pgbench-[a-z]+)\t(.*)$")

# What pgbench prints at the end of a run.
PGBENCH_FIGURES = {
    "tps": re.compile(r"^tps = ([0-9.]+) \(without initial connection time\)"),
    "latency_ms": re.compile(r"^latency average = ([0-9.]+) ms"),
    "transactions": re.compile(r"^number of transactions actually processed: (\d+)"),
    "failed": re.compile(r"^number of failed transactions: (\d+)"),
}

MODES = ("plain", "mshare")

TSV_COLUMNS = ("mode", "clients", "threads", "pgbench_T", "connect_s",
               "tps", "latency_ms",
               "transactions", "failed", "pagetables_kB", "vmpte_sum_kB",
               "postgres_procs", "region_pgtables_kB", "regions")


class Results:
    def __init__(self):
        self.config = {}
        self.runs = {}          # (mode, clients) -> {figure: value}
        self.checks = []        # (mode, clients, check, verdict, detail)
        self.memory = []        # (mode, phase, anon_shared_kB, pagetables_kB)
        self.times = {}         # phase -> seconds since the guest started
        self.kill_output = []   # pgbench's lines of the kill -9 run
        self.server_log = []    # the server log's tail after a failure
        self.verdict = None     # the harness's PASS/FAIL

    def run(self, mode, clients):
        return self.runs.setdefault((mode, int(clients)), {})

    def add(self, name, fields):
        if name == "pgbench-config" and len(fields) >= 2:
            self.config[fields[0]] = fields[1]
        elif name == "pgbench-run" and len(fields) == 5:
            run = self.run(fields[0], fields[1])
            run["threads"], run["pgbench_T"] = int(fields[2]), int(fields[3])
            run["connect_s"] = float(fields[4])
        elif name == "pgbench-sample" and len(fields) == 4:
            self.run(fields[0], fields[1])[fields[2]] = int(fields[3] or 0)
        elif name == "pgbench-out" and len(fields) == 3:
            self.add_pgbench_line(fields[0], fields[1], fields[2])
        elif name == "pgbench-check" and len(fields) == 5:
            self.checks.append(tuple(fields))
        elif name == "pgbench-memory" and len(fields) == 4:
            self.memory.append((fields[0], fields[1], int(fields[2]),
                                int(fields[3])))
        elif name == "pgbench-time" and len(fields) == 2:
            self.times[fields[0]] = float(fields[1])

    def add_pgbench_line(self, mode, clients, line):
        if mode not in MODES:
            self.kill_output.append((mode, line))
            return
        run = self.run(mode, clients)
        for figure, pattern in PGBENCH_FIGURES.items():
            match = pattern.match(line)
            if match:
                run[figure] = float(match.group(1))


def read_log(path):
    results = Results()
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            line = line.rstrip("\r\n")
            if line.startswith("harness: verdict "):
                results.verdict = line.split()[-1]
            if "pgbench-server-log| " in line:
                results.server_log.append(line.split("pgbench-server-log| ", 1)[1])
            match = RECORD.search(line)
            if match:
                results.add(match.group(1), match.group(2).split("\t"))
    return results


def client_counts(results):
    return sorted({clients for (mode, clients) in results.runs
                   if mode in MODES})


def complete(run):
    """A run with pgbench's figures and the half-way sample."""
    return "tps" in run and "pagetables_kB" in run


def both_halves(results):
    return [n for n in client_counts(results)
            if all(complete(results.runs.get((m, n), {})) for m in MODES)]


def region_kb(run):
    return run.get("region_pgtables_bytes", 0) / 1024


def write_tsv(results, path):
    with open(path, "w", encoding="utf-8") as tsv:
        tsv.write("\t".join(TSV_COLUMNS) + "\n")
        for clients in client_counts(results):
            for mode in MODES:
                run = results.runs.get((mode, clients))
                if not run:
                    continue
                row = dict(run, mode=mode, clients=clients,
                           region_pgtables_kB=region_kb(run))
                tsv.write("\t".join(format_cell(row.get(column, ""))
                                    for column in TSV_COLUMNS) + "\n")


def format_cell(value):
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value)


def write_plot_data(results, path):
    with open(path, "w", encoding="utf-8") as dat:
        dat.write("# clients pagetables_plain pagetables_mshare "
                  "vmpte_plain vmpte_mshare region_pgtables (kB)\n")
        for clients in both_halves(results):
            plain = results.runs[("plain", clients)]
            mshare = results.runs[("mshare", clients)]
            dat.write(f"{clients} {plain['pagetables_kB']} "
                      f"{mshare['pagetables_kB']} "
                      f"{plain.get('vmpte_sum_kB', 0)} "
                      f"{mshare.get('vmpte_sum_kB', 0)} "
                      f"{region_kb(mshare):.0f}\n")


def figure(run, key, fmt="{:,.0f}"):
    return fmt.format(run[key]) if key in run else "-"


def ratio(plain, mshare, key):
    if key not in plain or not mshare.get(key):
        return "-"
    return f"{plain[key] / mshare[key]:.2f}x"


def comparison_table(results):
    header = ("| clients | tps plain | tps mshare | latency plain (ms) "
              "| latency mshare (ms) | PageTables plain (kB) "
              "| PageTables mshare (kB) | Σ VmPTE plain (kB) "
              "| Σ VmPTE mshare (kB) | plain/mshare Σ VmPTE "
              "| region page tables (kB) | server processes |")
    lines = [header, "|" + "---:|" * header.count(" |")]
    for clients in client_counts(results):
        plain = results.runs.get(("plain", clients), {})
        mshare = results.runs.get(("mshare", clients), {})
        procs = f"{figure(plain, 'postgres_procs')} / " \
                f"{figure(mshare, 'postgres_procs')}"
        region = f"{region_kb(mshare):,.0f}" if "regions" in mshare else "-"
        lines.append(
            f"| {clients} | {figure(plain, 'tps', '{:,.1f}')} "
            f"| {figure(mshare, 'tps', '{:,.1f}')} "
            f"| {figure(plain, 'latency_ms', '{:,.1f}')} "
            f"| {figure(mshare, 'latency_ms', '{:,.1f}')} "
            f"| {figure(plain, 'pagetables_kB')} "
            f"| {figure(mshare, 'pagetables_kB')} "
            f"| {figure(plain, 'vmpte_sum_kB')} "
            f"| {figure(mshare, 'vmpte_sum_kB')} "
            f"| {ratio(plain, mshare, 'vmpte_sum_kB')} "
            f"| {region} | {procs} |")
    return lines


def config_lines(results):
    config = results.config
    seconds = config.get("seconds", "?")
    return [
        f"{config.get('postgres', 'PostgreSQL')} in ./linux "
        f"(MemTotal {int(config.get('mem_total_kB', 0)) // 1024} MiB, one CPU): "
        f"shared_buffers {config.get('shared_buffers', '?')}, "
        f"shared_memory_type {config.get('shared_memory_type', 'mmap')}, "
        f"max_connections {config.get('max_connections', '?')}, "
        f"pgbench's TPC-B-like script (-n), scale {config.get('scale', '?')}, "
        f"-T {seconds} s + 0.3 s a client (its clock counts the "
        "connecting), threads min(clients, 4).",
        "\"mshare\": the server started under "
        f"`{config.get('launcher', '?').strip()}`; \"plain\": started as it is. "
        "One server per mode for all client counts, plain first.",
        "Sampled half-way through each run: PageTables of /proc/meminfo "
        "(the whole guest), VmPTE summed over the server's processes "
        "(postmaster, auxiliaries, a backend per client: \"server "
        "processes\", plain / mshare) and the region's own page tables "
        "(pgtables_bytes in /sys/kernel/debug/mshare/regions).",
    ]


def check_lines(results):
    lines = []
    for mode, clients, check, verdict, detail in results.checks:
        who = mode if clients == "-" else f"{mode}, {clients} clients"
        lines.append(f"- {check} ({who}): {verdict}: {detail}")
    return lines


def kill_lines(results):
    counts = {}
    for mode, line in results.kill_output:
        for name, pattern in PGBENCH_FIGURES.items():
            match = pattern.match(line)
            if match:
                counts[(mode, name)] = match.group(1)
    lines = []
    if ("kill", "transactions") in counts:
        lines.append("- pgbench during the kill: "
                     f"{counts[('kill', 'transactions')]} transactions "
                     "processed before its clients lost their backends")
    if ("kill-after", "transactions") in counts:
        lines.append("- pgbench after the recovery: "
                     f"{counts[('kill-after', 'transactions')]} transactions, "
                     f"{counts.get(('kill-after', 'tps'), '?')} tps")
    return lines


def memory_lines(results):
    return [f"- {mode}, {phase.replace('_', ' ')}: AnonPages + Shmem - "
            f"tmpfs files {anon:,} kB, PageTables {pt:,} kB"
            for mode, phase, anon, pt in results.memory]


def time_line(results):
    if not results.times:
        return "Times: none recorded (the guest stopped early)."
    parts = [f"{phase} done at {seconds:.0f} s"
             for phase, seconds in results.times.items()]
    return "Times since the guest script started: " + ", ".join(parts) + "."


def markdown(results):
    failed = [c for c in results.checks if c[3] != "ok"]
    lines = ["# PostgreSQL under pgbench in ./linux, with and without mshare-run",
             ""]
    lines += config_lines(results) + [""]
    lines += comparison_table(results) + [""]
    lines += ["Checks:", ""] + check_lines(results)
    lines += kill_lines(results) + [""]
    lines += ["Memory before each server started and after it stopped:", ""]
    lines += memory_lines(results) + [""]
    lines.append(time_line(results))
    verdict = results.verdict or "none (the boot did not finish)"
    lines.append(f"Kernel log and guest verdict (harness): {verdict}.")
    if failed or results.server_log:
        lines += ["", "FAILED:"] + [f"- {c[2]} ({c[0]}, {c[1]}): {c[4]}"
                                    for c in failed]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True, help="the boot's console log")
    parser.add_argument("--out", required=True, help="directory for the results")
    args = parser.parse_args()

    try:
        results = read_log(args.log)
    except OSError as err:
        print(f"results: cannot read the console log: {err}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    write_tsv(results, os.path.join(args.out, "results.tsv"))
    write_plot_data(results, os.path.join(args.out, "pagetables.dat"))
    table = markdown(results)
    with open(os.path.join(args.out, "table.md"), "w", encoding="utf-8") as md:
        md.write(table)
    print(table, end="")

    if not both_halves(results):
        print(f"results: no client count has both a plain and an mshare run in {args.log}",
              file=sys.stderr)
        return 1
    if any(check[3] != "ok" for check in results.checks):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
