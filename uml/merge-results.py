#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the results files of the parts of a sharded run into one.

Each part (a boot with harness.shard=K/N, side by side in `make test` or
on its own CI runner) writes mshare-uml-junit.xml into its own directory.
This reads those, and writes one JUnit and one KTAP file as one whole run
would have written them, with the same rules for the verdict:

  - a test is in the merged results once; one that every part ran (the
    boot log's check, the end-of-run checks of the kernel log) counts
    once, failed if it failed in any part, its messages prefixed with the
    part that printed them;
  - a part directory without a JUnit file is a part whose boot crashed or
    hung: the verdict fails;
  - with --plan (the output of `host-harness --list_tests` for the whole
    selection, or of `./linux harness.list_tests`), every test of the plan
    must have a result: those without one are named, and fail the verdict;
    a test that some parts but not all ran is an error as well.  The
    merged files list the tests in the plan's order (the order one whole
    run runs them in, when the plan is the whole selection's).

Prints "merge-results: P passed, F failed, S skipped", each failed test
with its first messages, and the files it wrote, as the harness does (check-results.py reads either), and the
verdict.
Exits 0 for PASS, 1 for FAIL, 2 on a usage error.
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

JUNIT_NAME = 'mshare-uml-junit.xml'
KTAP_NAME = 'mshare-uml.ktap'
# A failed test's first messages printed with the counts (all of them are
# in the merged files): where the failure is, in the last lines of a log.
MESSAGES_SHOWN = 3
# The status order: a case that several parts ran takes the worst.
PASS, SKIP, FAIL = 0, 1, 2


class MergeError(Exception):
    pass


class Case:
    def __init__(self, suite, name):
        self.suite = suite
        self.name = name
        self.status = PASS
        self.msec = 0
        self.why = ''
        self.messages = []
        self.parts = []

    def add(self, elem, part, nparts):
        """One part's <testcase> of this test."""
        self.parts.append(part)
        self.msec += round(float(elem.get('time', '0')) * 1000)
        failure = elem.find('failure')
        skipped = elem.find('skipped')
        prefix = f'part {part}: ' if nparts > 1 else ''
        if failure is not None:
            self.status = FAIL
            text = (failure.text or failure.get('message', '')).strip()
            self.messages += [prefix + line for line in text.splitlines()]
        elif skipped is not None:
            self.status = max(self.status, SKIP)
            self.why = self.why or skipped.get('message', '')


def read_part(path):
    """The <testcase> elements of one part's JUnit file, in order."""
    junit = os.path.join(path, JUNIT_NAME)
    if not os.path.exists(junit):
        return None
    try:
        root = ET.parse(junit).getroot()
    except ET.ParseError as e:
        raise MergeError(f'{junit}: not XML: {e}') from e
    return [(suite.get('name'), case) for suite in root.iter('testsuite')
            for case in suite.iter('testcase')]


def read_plan(path):
    with open(path) as f:
        return [line.strip() for line in f
                if '/' in line and not line.startswith('harness:')]


def merge(parts):
    """{(suite, test): Case} in the order the tests first appear."""
    cases = {}
    for number, part in enumerate(parts, 1):
        for suite, elem in part:
            key = (suite, elem.get('name'))
            if key not in cases:
                cases[key] = Case(*key)
            cases[key].add(elem, number, len(parts))
    return cases


def in_plan_order(cases, plan):
    """The suites and their cases: the plan's order, then the others."""
    rank = {}
    for test in plan:
        rank.setdefault(tuple(test.split('/', 1)), len(rank))
    ordered = sorted(cases.values(),
                     key=lambda c: rank.get((c.suite, c.name), len(rank)))
    suites = {}
    for case in ordered:
        suites.setdefault(case.suite, []).append(case)
    return suites


def problems(cases, plan, parts_ran):
    """What makes the merged run incomplete, a sentence each."""
    found = []
    if plan:
        planned = {tuple(test.split('/', 1)) for test in plan}
        missing = [f'{s}/{t}' for s, t in planned - cases.keys()]
        if missing:
            found.append(f'{len(missing)} planned tests have no result '
                         f'(not run): {" ".join(sorted(missing))}')
    for case in cases.values():
        if 1 < len(case.parts) < parts_ran:
            found.append(f'{case.suite}/{case.name} ran in parts '
                         f'{case.parts}, neither one part nor all')
    return found


def msec_text(msec):
    return f'{msec // 1000}.{msec % 1000:03d}'


def xml_escape(text):
    return escape(text, {'"': '&quot;'})


def counts(cases):
    statuses = [c.status for c in cases]
    return (statuses.count(PASS), statuses.count(FAIL), statuses.count(SKIP))


def write_junit(path, suites):
    everything = [c for cases in suites.values() for c in cases]
    passed, failed, skipped = counts(everything)
    total = sum(c.msec for c in everything)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites name="mshare-uml" tests="{len(everything)}" '
             f'failures="{failed}" errors="0" skipped="{skipped}" '
             f'time="{msec_text(total)}">']
    for name, cases in suites.items():
        _, s_failed, s_skipped = counts(cases)
        lines.append(f'  <testsuite name="{xml_escape(name)}" '
                     f'tests="{len(cases)}" failures="{s_failed}" errors="0" '
                     f'skipped="{s_skipped}" '
                     f'time="{msec_text(sum(c.msec for c in cases))}">')
        for c in cases:
            head = (f'    <testcase classname="{xml_escape(name)}" '
                    f'name="{xml_escape(c.name)}" time="{msec_text(c.msec)}"')
            if c.status == PASS:
                lines.append(head + '/>')
                continue
            lines.append(head + '>')
            if c.status == FAIL:
                first = c.messages[0] if c.messages else ''
                body = ''.join(xml_escape(m) + '\n' for m in c.messages)
                lines.append('      <failure type="failure" message="'
                             f'{xml_escape(first)}">{body}</failure>')
            else:
                lines.append(f'      <skipped message="{xml_escape(c.why)}"/>')
            lines.append('    </testcase>')
        lines.append('  </testsuite>')
    lines.append('</testsuites>')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def ktap_suite(n, name, cases):
    lines = ['    KTAP version 1', f'    # Subtest: {name}',
             f'    1..{len(cases)}']
    for i, c in enumerate(cases, 1):
        lines += [f'    # {c.name}: {m}' for m in c.messages]
        lines.append(f'    # duration: {msec_text(c.msec)} s')
        result = 'not ok' if c.status == FAIL else 'ok'
        skip = f' # SKIP {c.why}' if c.status == SKIP else ''
        lines.append(f'    {result} {i} {c.name}{skip}')
    _, failed, skipped = counts(cases)
    whys = {c.why for c in cases}
    skip = f' # SKIP {whys.pop()}' if skipped == len(cases) and len(whys) == 1 else ''
    lines.append(f'{"not ok" if failed else "ok"} {n} {name}{skip}')
    return lines


def write_ktap(path, suites):
    lines = ['KTAP version 1', f'1..{len(suites)}']
    for n, (name, cases) in enumerate(suites.items(), 1):
        lines += ktap_suite(n, name, cases)
    passed, failed, skipped = counts([c for cs in suites.values() for c in cs])
    lines.append(f'# Totals: pass:{passed} fail:{failed} skip:{skipped} '
                 f'total:{passed + failed + skipped}')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True,
                    help='directory for the merged JUnit and KTAP files')
    ap.add_argument('--plan', help='the tests the whole run selects, '
                    'one suite/test a line (host-harness --list_tests)')
    ap.add_argument('parts', nargs='+', metavar='PART_DIR',
                    help="each part's results directory")
    args = ap.parse_args()
    try:
        parts = [read_part(p) for p in args.parts]
        plan = read_plan(args.plan) if args.plan else []
    except (MergeError, OSError) as e:
        print(f'merge-results: {e}', file=sys.stderr)
        return 2
    found = [f'part {n} ({p}) wrote no {JUNIT_NAME}: its boot crashed or hung'
             for n, (p, part) in enumerate(zip(args.parts, parts), 1)
             if part is None]
    ran = [part for part in parts if part is not None]
    cases = merge(ran)
    found += problems(cases, plan, len(ran))
    suites = in_plan_order(cases, plan)
    os.makedirs(args.out, exist_ok=True)
    for fmt, name, write in (('JUnit', JUNIT_NAME, write_junit),
                              ('KTAP', KTAP_NAME, write_ktap)):
        write(os.path.join(args.out, name), suites)
        print(f'merge-results: {fmt} results written to '
              f'{os.path.join(args.out, name)}')
    passed, failed, skipped = counts(cases.values())
    for case in cases.values():
        if case.status == FAIL:
            print(f'merge-results: FAILED {case.suite}/{case.name}')
            for line in case.messages[:MESSAGES_SHOWN]:
                print(f'merge-results:   {line}')
    for line in found:
        print(f'merge-results: {line}')
    print(f'merge-results: {len(args.parts)} parts into {args.out}: '
          f'{len(cases)} tests')
    print(f'merge-results: {passed} passed, {failed} failed, {skipped} skipped')
    verdict = 'FAIL' if failed or found else 'PASS'
    print(f'merge-results: verdict {verdict}')
    return 1 if verdict == 'FAIL' else 0


if __name__ == '__main__':
    sys.exit(main())
