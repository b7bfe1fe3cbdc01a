#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Timestamps and tables for `make bench-loop` (uml/bench-loop.sh).

  stamp OUT START       each line of stdin to OUT as "SECONDS<TAB>LINE",
                        seconds since START (the epoch time the command
                        started), then "SECONDS<TAB>END" at end of input;
                        uml/bench-loop.sh appends "-<TAB>EXIT rc".
  round DIR I           one line: round I's totals, ours and kunit.py's.
  noop FILE             the time of a `make` with nothing changed (a stamp
                        file), and whether it rebuilt anything.
  report DIR N          every phase of rounds 1..N, their medians, the two
                        loops side by side and the ratio of the medians.

A phase is read from the times between output lines: the time after a line
until the next one is charged to that line's phase (kbuild prints a line
before each command; with -j2 two commands may overlap, so the split of
`make` into kbuild / link / initramfs is approximate, its total is not).
Lines printed before the stamper is reading (python3's start-up, about
0.1 s; pyenv's shim is slow) are stamped when it starts, so that time
goes to the first phase (prepare-source) and the harness phase, tens of
milliseconds, may read 0.00.
"""
import os
import re
import statistics
import sys
import time

# `make`'s phases, in the order the top-level Makefile runs them.
MAKE_PHASES = ('prepare-source', 'harness', 'kbuild', 'link', 'initramfs')
# One boot of ./linux, from the host's fork of ./linux to its exit.
BOOT_PHASES = ('boot', 'tests', 'kmemleak', 'power-off')
KUNIT_PHASES = ('configure', 'build', 'run', 'other')

KBUILD_LINE = re.compile(r'^  ([A-Z0-9_]+)\s+(\S+)')
# link-vmlinux.sh's steps and the archive it links (UML: vmlinux is ./linux).
LINK_TARGET = re.compile(r'^(\.tmp_vmlinux|vmlinux|linux$|System\.map|'
                         r'init/version-timestamp\.o)')
NOOP_KBUILD = re.compile(r'^  (GEN +Makefile|CALL +\S+/checksyscalls\.sh|LINK linux)$')
KUNIT_RESULT = re.compile(r'Testing complete\. Ran (\d+) tests?')
KUNIT_ELAPSED = re.compile(r'Elapsed time: [\d.]+s total, ([\d.]+)s configuring, '
                           r'([\d.]+)s building, ([\d.]+)s running')
HARNESS_COUNTS = re.compile(r'^harness: (\d+) passed, (\d+) failed')


def stamp(argv):
    """Lines of stdin into OUT, timed from START (the shell's clock when it
    started the command: the command is the shell's child, not ours, so
    that it sees the shell's environment, which a python3 shim such as
    pyenv's changes), and an END line at end of input."""
    if len(argv) != 2:
        sys.exit('usage: CMD | bench_loop.py stamp OUT START')
    out, start = argv[0], float(argv[1])
    with open(out, 'w') as f:
        for raw in sys.stdin.buffer:
            line = raw.decode(errors='replace').rstrip('\r\n')
            f.write('%.3f\t%s\n' % (time.time() - start, line))
        f.write('%.3f\tEND\n' % (time.time() - start))


def read_stamps(path):
    """[(seconds, line)] ending with the END line, and the exit status the
    shell appended ("EXIT rc")."""
    rows = []
    with open(path, errors='replace') as f:
        for row in f:
            t, _, line = row.rstrip('\n').partition('\t')
            rows.append((t, line))
    if len(rows) < 2 or rows[-2][1] != 'END' or not rows[-1][1].startswith('EXIT '):
        raise ValueError('%s: no END and EXIT lines (the command was cut short)' % path)
    rc = int(rows[-1][1].split()[1])
    return [(float(t), line) for t, line in rows[:-1]], rc


def charge(rows, classify, first):
    """Sum the time after each line (until the next) into its phase."""
    phases = {}
    phase = first
    prev = 0.0
    for t, line in rows:
        phases[phase] = phases.get(phase, 0.0) + t - prev
        prev = t
        phase = classify(line, phase)
    return phases


def make_phase(line, phase):
    """What the line after `line` is spent on, in `make`'s output."""
    if line.startswith('prepare-source: Linux '):
        return 'harness'	# then the harness, initramfs list, config check
    if line.startswith('flock ') and ' linux scripts_gdb' in line:
        return 'kbuild'		# the kernel build's make starts: traversal
    m = KBUILD_LINE.match(line)
    if not m:
        return phase
    tag, target = m.groups()
    if target.startswith('usr/'):
        return 'initramfs'
    if LINK_TARGET.match(target) or (tag == 'AR' and target == 'vmlinux.a'):
        return 'link'
    return 'kbuild'


def boot_phase(line, phase):
    if phase == 'boot' and ('Run /init as init process' in line or
                            line.startswith('harness:')):
        return 'tests'
    if line.startswith('harness: kmemleak: waiting'):
        return 'kmemleak'
    if line.startswith('harness: kmemleak: ') and 'unreferenced' in line:
        return 'power-off'
    if line.startswith('harness: verdict'):
        return 'power-off'
    return phase


def ours(d, i):
    make_rows, make_rc = read_stamps(os.path.join(d, 'ours-%d.make' % i))
    boot_rows, boot_rc = read_stamps(os.path.join(d, 'ours-%d.boot' % i))
    p = charge(make_rows, make_phase, 'prepare-source')
    p.update(charge(boot_rows, boot_phase, 'boot'))
    p['make'] = make_rows[-1][0]
    p['boot+suite'] = boot_rows[-1][0]
    p['total'] = p['make'] + p['boot+suite']
    counts = [HARNESS_COUNTS.match(line) for _, line in boot_rows]
    counts = [m for m in counts if m]
    note = ''
    if counts:
        note = '%s passed, %s failed' % counts[-1].groups()
    return p, make_rc, boot_rc, note


def kunit(d, i):
    rows, rc = read_stamps(os.path.join(d, 'kunit-%d.run' % i))
    p = {'total': rows[-1][0]}
    note = ''
    for _, line in rows:
        m = KUNIT_ELAPSED.search(line)
        if m:
            p['configure'], p['build'], p['run'] = map(float, m.groups())
        m = KUNIT_RESULT.search(line)
        if m:
            note = '%s tests' % m.group(1)
    if 'run' not in p:
        raise ValueError('kunit-%d.run: no "Elapsed time" line' % i)
    # kunit.py's start-up and its parse after the run.
    p['other'] = p['total'] - p['configure'] - p['build'] - p['run']
    return p, rc, 0, note


def fmt(x):
    return '%6.2f' % x if x is not None else '     -'


def round_line(d, i):
    o, omrc, obrc, onote = ours(d, i)
    k, krc, _, knote = kunit(d, i)
    print('bench-loop: round %d: ours %.2f s (make %.2f, boot+suite %.2f; %s),'
          ' kunit.py %.2f s (configure+build %.2f, run %.2f; %s)%s' % (
              i, o['total'], o['make'], o['boot+suite'], onote or '?',
              k['total'], k['configure'] + k['build'], k['run'], knote or '?',
              '' if not (omrc or obrc or krc) else
              ' [exit: make %d, ./linux %d, kunit.py %d]' % (omrc, obrc, krc)))


def report(d, n):
    rounds = range(1, n + 1)
    o = [ours(d, i) for i in rounds]
    k = [kunit(d, i) for i in rounds]
    bad = [i for i, r in zip(rounds, o) if r[1] or r[2]]
    bad += [i for i, r in zip(rounds, k) if r[1] or r[2]]

    def row(name, values):
        med = statistics.median(values)
        return '  %-16s %s   %s' % (name, ' '.join(fmt(v) for v in values),
                                   fmt(med)), med

    head = '  %-16s %s   %s' % ('phase (s)', ' '.join(
        '%6s' % ('r%d' % i) for i in rounds), 'median')
    print('bench-loop: ours: edit mm/mshare.c -> make -> one suite')
    print(head)
    for ph in MAKE_PHASES + ('make',) + BOOT_PHASES + ('boot+suite', 'total'):
        print(row(ph, [r[0].get(ph, 0.0) for r in o])[0])
    print('bench-loop: kunit.py: edit mm/memory.c -> kunit.py run --arch=um')
    print(head)
    for ph in KUNIT_PHASES + ('total',):
        print(row(ph, [r[0][ph] for r in k])[0])
    om = statistics.median(r[0]['total'] for r in o)
    km = statistics.median(r[0]['total'] for r in k)
    print('bench-loop: suite verdicts: ours %s; kunit.py %s' % (
        ', '.join(sorted(set(r[3] or '?' for r in o))),
        ', '.join(sorted(set(r[3] or '?' for r in k)))))
    print('bench-loop: median of %d rounds: ours %.2f s, kunit.py %.2f s, '
          'ratio %.2f' % (n, om, km, om / km))
    if bad:
        print('bench-loop: FAIL: rounds %s had a non-zero exit (see %s)' % (
            ' '.join(str(i) for i in sorted(set(bad))), d))
        return 1
    return 0


def noop(path):
    rows, rc = read_stamps(path)
    # What a kbuild with nothing to do prints all the same.
    kbuild = [line for _, line in rows if KBUILD_LINE.match(line) and
              not NOOP_KBUILD.match(line)]
    print('bench-loop: make with nothing changed: %.2f s%s%s' % (
        rows[-1][0], ', exit %d' % rc if rc else '',
        '' if not kbuild else ', but it ran: ' + '; '.join(
            line.strip() for line in kbuild[:5])))
    return rc


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'stamp':
        stamp(args)
    elif cmd == 'round' and len(args) == 2:
        round_line(args[0], int(args[1]))
    elif cmd == 'noop' and len(args) == 1:
        sys.exit(noop(args[0]))
    elif cmd == 'report' and len(args) == 2:
        sys.exit(report(args[0], int(args[1])))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
