#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a results file of a harness run against the harness's own counts
(or against uml/merge-results.py's, for the merged parts of a run).

The harness ends its console with "harness: P passed, F failed, S skipped"
and names each file it wrote ("harness: KTAP results written to PATH").

  ktap:  `kunit.py parse` of the KTAP file must parse it without errors or
         crashed tests and print the same passed/failed/skipped counts;
         each case's result line must follow its "# duration: S.SSS s".
  junit: the JUnit file must validate against the schema (xmllint), its
         testcases must give the same counts, and its totals must agree;
         each testcase must have a time, each testsuite (and testsuites)
         the sum of its testcases' times.

Exits 0 when the file agrees, 1 when it does not, 2 on a usage error.
"""
import argparse
import decimal
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

COUNTS = ('passed', 'failed', 'skipped')
# The harness's lines, or uml/merge-results.py's for the merged parts.
HARNESS_COUNTS = re.compile(
    r'^(?:harness|merge-results): (\d+) passed, (\d+) failed, (\d+) skipped$')
WRITTEN = re.compile(
    r'^(?:harness|merge-results): (\S+) results written to (\S+)$')
KUNIT_SUMMARY = re.compile(r'Testing complete\. Ran (\d+) tests?: ?(.*)$')
# A case of a suite: one subtest level down.
KTAP_CASE_RESULT = re.compile(r'^    (ok|not ok) \d+ ')
KTAP_DURATION = re.compile(r'^    # duration: \d+\.\d{3} s$')
ANSI = re.compile(r'\x1b\[[0-9;]*m')


class CheckError(Exception):
    pass


def console_lines(path):
    with open(path, errors='replace') as f:
        return [line.rstrip('\r\n') for line in f]


def harness_counts(lines):
    """The counts of the harness's last summary line."""
    for line in reversed(lines):
        m = HARNESS_COUNTS.match(line)
        if m:
            return dict(zip(COUNTS, map(int, m.groups())))
    raise CheckError('no "harness: N passed, M failed, K skipped" line '
                     'in the console')


def written_file(lines, fmt, results_dir):
    """The host path of the FMT file the console says the harness wrote.

    Under UML the harness names it by its guest path (the results
    directory is mounted at /results), so only the file name is used.
    """
    for line in lines:
        m = WRITTEN.match(line)
        if m and m.group(1) == fmt:
            return os.path.join(results_dir, os.path.basename(m.group(2)))
    raise CheckError(f'the console names no {fmt} results file')


def kunit_counts(kunit, path):
    """passed/failed/skipped/crashed/errors as `kunit.py parse` sums them.

    kunit.py changes to the kernel tree's directory: absolute paths only.
    """
    run = subprocess.run([sys.executable, kunit, 'parse', os.path.abspath(path)],
                         capture_output=True, text=True, check=False)
    output = ANSI.sub('', run.stdout + run.stderr)
    for line in output.splitlines():
        m = KUNIT_SUMMARY.search(line)
        if not m:
            continue
        counts = dict.fromkeys(COUNTS + ('crashed', 'errors'), 0)
        for part in filter(None, m.group(2).split(', ')):
            name, _, value = part.partition(': ')
            counts[name] = int(value)
        return counts, line.strip()
    raise CheckError(f'kunit.py parse printed no summary:\n{output}')


def ktap_missing_durations(path):
    """How many cases, of how many, lack a duration line just before."""
    with open(path, errors='replace') as f:
        ktap = f.read().splitlines()
    cases = [i for i, line in enumerate(ktap) if KTAP_CASE_RESULT.match(line)]
    missing = [i for i in cases if not KTAP_DURATION.match(ktap[i - 1])]
    return len(missing), len(cases)


def check_ktap(args, lines):
    path = written_file(lines, 'KTAP', args.results)
    got, summary = kunit_counts(args.kunit, path)
    print(f'check-results: kunit.py parse {path}: {summary}')
    problems = []
    if got['errors'] or got['crashed']:
        problems.append(f"kunit.py found {got['errors']} parse error(s) "
                        f"and {got['crashed']} crashed test(s)")
    missing, cases = ktap_missing_durations(path)
    print(f'check-results: duration lines: {cases - missing} of {cases} cases')
    if missing:
        problems.append(f'{missing} of {cases} cases have no '
                        f'"# duration: S.SSS s" line before their result')
    return path, {k: got[k] for k in COUNTS}, problems


def junit_counts(root):
    """Counts from the testcases, and the totals the file claims."""
    counts = dict.fromkeys(COUNTS, 0)
    for case in root.iter('testcase'):
        if case.find('failure') is not None or case.find('error') is not None:
            counts['failed'] += 1
        elif case.find('skipped') is not None:
            counts['skipped'] += 1
        else:
            counts['passed'] += 1
    claimed = {
        'tests': int(root.get('tests', -1)),
        'failures': int(root.get('failures', -1)) + int(root.get('errors', 0)),
        'skipped': int(root.get('skipped', 0)),
    }
    return counts, claimed


def seconds(element):
    """Its time attribute, or None when it has none."""
    time = element.get('time')
    return None if time is None else decimal.Decimal(time)


def junit_time_problems(root):
    """Testcases without a time; totals that are not their cases' sums."""
    problems = []
    cases = list(root.iter('testcase'))
    untimed = [c for c in cases if seconds(c) is None]
    print(f'check-results: time attributes: {len(cases) - len(untimed)} '
          f'of {len(cases)} testcases, the run {root.get("time")} s')
    if untimed:
        problems.append(f'{len(untimed)} of {len(cases)} testcases have no '
                        f'time, the first {untimed[0].get("classname")}/'
                        f'{untimed[0].get("name")}')
        return problems
    for total in [root] + list(root.iter('testsuite')):
        want = sum((seconds(c) for c in total.iter('testcase')),
                   decimal.Decimal(0))
        if seconds(total) != want:
            problems.append(f'{total.tag} {total.get("name")} time '
                            f'{total.get("time")}, its testcases sum {want}')
    return problems


def check_junit(args, lines):
    path = written_file(lines, 'JUnit', args.results)
    run = subprocess.run(['xmllint', '--noout', '--schema', args.schema, path],
                         capture_output=True, text=True, check=False)
    print(f'check-results: xmllint --schema {args.schema}: '
          f'{(run.stderr or run.stdout).strip()}')
    if run.returncode:
        return path, None, [f'{path} does not validate against {args.schema}']
    root = ET.parse(path).getroot()
    counts, claimed = junit_counts(root)
    problems = []
    total = sum(counts.values())
    if claimed != {'tests': total, 'failures': counts['failed'],
                   'skipped': counts['skipped']}:
        problems.append(f'the testsuites totals {claimed} are not those of '
                        f'its testcases ({total} tests, {counts})')
    problems += junit_time_problems(root)
    return path, counts, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('format', choices=('ktap', 'junit'))
    parser.add_argument('--console', required=True, help="the run's console log")
    parser.add_argument('--results', required=True, help='the results directory')
    parser.add_argument('--kunit', help='tools/testing/kunit/kunit.py (ktap)')
    parser.add_argument('--schema', help='JUnit XSD (junit)')
    args = parser.parse_args()
    if args.format == 'ktap' and not args.kunit:
        parser.error('ktap needs --kunit')
    if args.format == 'junit' and not args.schema:
        parser.error('junit needs --schema')

    check = check_ktap if args.format == 'ktap' else check_junit
    try:
        lines = console_lines(args.console)
        want = harness_counts(lines)
        path, got, problems = check(args, lines)
    except (CheckError, OSError, ET.ParseError, ValueError,
            decimal.InvalidOperation) as err:
        print(f'check-results: {args.format}: FAIL: {err}')
        return 1
    if got is not None and got != want:
        problems.append(f'{path} counts {got}, the harness {want}')
    for problem in problems:
        print(f'check-results: {args.format}: FAIL: {problem}')
    if problems:
        return 1
    print(f'check-results: {args.format}: PASS: {got} as the harness counted')
    return 0


if __name__ == '__main__':
    sys.exit(main())
