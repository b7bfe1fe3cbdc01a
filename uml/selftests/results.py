#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-case results of the mm selftests from the consoles of ./linux boots.

tests/mm_selftests.c prints, for each binary of its plan, "MMST NAME: begin",
the binary's output as "MMST NAME| LINE" and "MMST NAME: end STATUS"; the
harness prints a splat the kernel logged during it as "  KMSG| RECORD".
Each binary's KTAP output becomes one row per case, named by its number and
its text (with the "# [RUN]" line before it, if any), plus two rows of its own:
"[exit]" (how the binary ended: exit status, signal, timeout, or the kernel
died under it) and "[kernel log]" (a splat while it ran).  A boot gets rows
for what belongs to no binary: "[boot]" (the log before the tests), and
"[end]" (kmemleak, the log after the last test).

  results.py remaining LOG...           the binaries of the plan not begun
                                        yet, as a harness.run= selection
  results.py tsv [--note TEXT] LOG:RC... -o FILE
                                        the rows, one boot a LOG with the
                                        exit status RC run-linux.sh gave it

Results: pass, fail, skip, crash (the binary died of a signal or the
kernel died under it), timeout (the harness killed it), hang (the boot
timed out under it), splat.
"""
import argparse
import datetime
import re
import sys

BEGIN = re.compile(r'^MMST (\S+): begin$')
END = re.compile(r'^MMST (\S+): end (.*)$')
OUT = re.compile(r'^MMST (\S+)\| ?(.*)$')
PLAN = re.compile(r'^MMST plan:(.*)$')
KMSG = re.compile(r'^  KMSG\| (.*)$')
KMEMLEAK = re.compile(r'^  KMEMLEAK\| (.*)$')
LOG_AFTER = re.compile(r'^harness: (\d+) bad kernel log record\(s\) after the last test')
LOG_BEFORE = re.compile(r'^harness: (\d+) bad record\(s\) in the log before the tests')
VERDICT = re.compile(r'^harness: verdict (\S+)')
VERSION = re.compile(r'(Linux version \S+)')
PANIC = re.compile(r'(Kernel panic.*|Kernel mode fault.*|BUG:.*|Oops.*)')

TAP = re.compile(r'^(not ok|ok) (\d+)(?: -)?(?: (.*))?$')
RUN_CTX = re.compile(r'^# \[RUN\] (.*)$')
BAIL = re.compile(r'^Bail out!\s*(.*)$')
SKIP_ALL = re.compile(r'^1\.\.0 # SKIP\s*(.*)$')
EXIT_RC = re.compile(r'^exit (\d+)')
SUITE = 'mm_selftests'		# tests/mm_selftests.c
KSFT_SKIP = 4
HANG_RCS = (124, 137)


def read_lines(path):
    with open(path, errors='replace') as f:
        return [line.rstrip('\r\n').replace('\r', '') for line in f]


def plan_of(logs):
    for log in logs:
        for line in read_lines(log):
            m = PLAN.match(line)
            if m:
                return m.group(1).split()
    return []


def begun_in(logs):
    begun = set()
    for log in logs:
        for line in read_lines(log):
            m = BEGIN.match(line)
            if m:
                begun.add(m.group(1))
    return begun


def tap_case(text, ctx):
    """(name, result, detail) of one TAP result line's text after "ok N"."""
    # "ok 2 # SKIP why" has no description: the directive comes first.
    desc, _, directive = (' ' + (text or '')).partition(' # ')
    desc = desc.strip()
    directive = directive.strip()
    word = directive.split(' ', 1)[0].upper() if directive else ''
    reason = directive.split(' ', 1)[1].strip() if ' ' in directive else ''
    if word in ('SKIP', 'XFAIL', 'XPASS', 'TODO', 'ERROR'):
        detail = reason
    else:
        word = ''
        detail = directive
    if word in ('SKIP', 'XFAIL') and not desc:
        desc = ctx or reason
    elif ctx and not desc.startswith(ctx):
        desc = f'{ctx}: {desc}' if desc else ctx
    return desc, word, detail


class Binary:
    def __init__(self, name):
        self.name = name
        self.cases = []		# [name, result, detail]
        self.seen = {}
        self.ctx = ''
        self.bail = ''
        self.skip_all = None
        self.end = None
        self.splats = []

    def add_case(self, name, result, detail):
        n = self.seen.get(name, 0) + 1
        self.seen[name] = n
        if n > 1:
            name = f'{name} [{n}]'
        self.cases.append([name, result, detail])

    def output(self, line):
        m = RUN_CTX.match(line)
        if m:
            self.ctx = m.group(1).strip()
            return
        m = BAIL.match(line)
        if m:
            self.bail = m.group(1)
            return
        m = SKIP_ALL.match(line)
        if m:
            self.skip_all = m.group(1)
            return
        m = TAP.match(line)
        if not m:
            return
        name, word, detail = tap_case(m.group(3), self.ctx)
        # The number first: it names the case (compare.py pairs on it), the
        # text (which may carry a failing line number) describes it.
        name = f'{m.group(2)} {name}'
        if m.group(1) == 'not ok' and word != 'SKIP':
            result = 'fail'
        elif word in ('', 'XFAIL'):
            result = 'pass'
        elif word == 'SKIP':
            result = 'skip'
        else:			# XPASS, TODO, ERROR
            result = 'fail'
        self.add_case(name, result, f'{word}: {detail}' if word and
                      result != 'skip' else detail)
        self.ctx = ''

    def exit_row(self):
        end = self.end
        m = EXIT_RC.match(end)
        if m and int(m.group(1)) == 0:
            return 'pass', end
        if m and int(m.group(1)) == KSFT_SKIP:
            return 'skip', self.skip_all or self.bail or end
        if m:
            return 'fail', f'{end}: {self.bail}' if self.bail else end
        if end.startswith('signal'):
            return 'crash', end
        if end.startswith('timeout'):
            return 'timeout', end
        if end.startswith('kernel'):
            return ('hang' if 'hang' in end else 'crash'), end
        return 'fail', end

    def rows(self):
        rows = [[self.name] + c for c in self.cases]
        if self.skip_all is not None and not self.cases:
            rows.append([self.name, '(all)', 'skip', self.skip_all])
        result, detail = self.exit_row()
        rows.append([self.name, '[exit]', result, detail])
        if self.splats:
            rows.append([self.name, '[kernel log]', 'splat',
                         f'{len(self.splats)} bad record(s), first: {self.splats[0]}'])
        else:
            rows.append([self.name, '[kernel log]', 'pass', ''])
        return rows


def parse_boot(path, rc, binaries, extra, info):
    cur = None
    verdict = None
    panic = ''
    for line in read_lines(path):
        m = VERSION.search(line)
        if m and 'kernel' not in info:
            info['kernel'] = line[m.start():].strip()
        m = BEGIN.match(line)
        if m:
            cur = binaries.setdefault(m.group(1), Binary(m.group(1)))
            continue
        m = OUT.match(line)
        if m and cur and m.group(1) == cur.name:
            cur.output(m.group(2))
            continue
        m = END.match(line)
        if m and cur and m.group(1) == cur.name:
            cur.end = m.group(2)
            continue
        m = KMSG.match(line)
        if m:
            if cur:
                cur.splats.append(m.group(1))
            else:
                extra.append(['[boot]', 'kernel log', 'splat', m.group(1)])
            continue
        m = KMEMLEAK.match(line)
        if m:
            extra.append(['[end]', 'kmemleak', 'splat', m.group(1)])
            continue
        m = LOG_AFTER.match(line)
        if m:
            extra.append(['[end]', 'kernel log after the last test', 'splat',
                          f'{m.group(1)} bad record(s)'])
            continue
        m = VERDICT.match(line)
        if m:
            verdict = m.group(1)
            continue
        m = PANIC.search(line)
        if m and not panic and not line.startswith('MMST '):
            panic = m.group(1)
    if verdict is None and cur and cur.end is None:
        how = 'hang' if rc in HANG_RCS else 'crash'
        cur.end = f'kernel {how} (boot exit {rc}){": " + panic if panic else ""}'
    elif verdict is None:
        extra.append(['[end]', 'boot', 'hang' if rc in HANG_RCS else 'crash',
                      f'no harness verdict (boot exit {rc}) {panic}'.strip()])


def cmd_remaining(args):
    plan = plan_of(args.logs)
    begun = begun_in(args.logs)
    print(','.join(f'{SUITE}/{name}' for name in plan if name not in begun))


def cmd_tsv(args):
    boots = []
    for item in args.boots:
        path, _, rc = item.rpartition(':')
        boots.append((path, int(rc)))
    plan = plan_of([p for p, _ in boots])
    binaries = {}
    extra = []
    info = {}
    for path, rc in boots:
        parse_boot(path, rc, binaries, extra, info)
    rows = []
    for name in plan:
        if name in binaries:
            rows += binaries[name].rows()
        else:
            rows.append([name, '[exit]', 'crash', 'not run: the boot died before it'])
    rows += extra
    with open(args.output, 'w') as f:
        f.write(f'# mm selftests, per case; written {datetime.date.today()} '
                f'by uml/selftests/results.py from {len(boots)} boot(s)\n')
        f.write(f'# kernel: {info.get("kernel", "unknown")}\n')
        if args.note:
            f.write(f'# tree: {args.note}\n')
        f.write('binary\tcase\tresult\tdetail\n')
        for row in rows:
            f.write('\t'.join(c.replace('\t', ' ') for c in row) + '\n')
    counts = {}
    for row in rows:
        counts[row[2]] = counts.get(row[2], 0) + 1
    print('results: ' + ', '.join(f'{n} {r}' for r, n in sorted(counts.items())) +
          f' -> {args.output}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('remaining')
    p.add_argument('logs', nargs='+')
    p.set_defaults(func=cmd_remaining)
    p = sub.add_parser('tsv')
    p.add_argument('--note', default='')
    p.add_argument('-o', '--output', required=True)
    p.add_argument('boots', nargs='+', metavar='LOG:RC')
    p.set_defaults(func=cmd_tsv)
    args = ap.parse_args()
    args.func(args)


if __name__ == '__main__':
    sys.exit(main())
