#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side by side: the mm selftests on the base kernel and on the full series.

Reads two results.tsv files (uml/selftests/results.py) and the expectations
file, prints a Markdown table (one row a case) with a summary, writes it to
-o, and exits 1 if the verdict is FAIL:

- a case (or an [exit] or [kernel log] row) that passes on base does not
  pass on the full series: fails, crashes, times out, hangs, splats, or is
  missing;
- a row of either kernel says the kernel itself crashed, hung or logged a
  splat outside the binaries ([boot], [end]);
- a case that does not pass (and is not skipped) on base has no line in the
  expectations file, or a line there does not match base: every base
  failure must be named as a UML or 6.12 limitation or defect, with a reason.

A full-results file that does not exist is no comparison: the base column
and its expectations alone are checked (make selftests SERIES=base before
make selftests has run).
"""
import argparse
import os
import sys

OK = ('pass', 'skip')


def load(path):
    meta, rows = {}, {}
    order = []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('# kernel: '):
                meta['kernel'] = line[len('# kernel: '):]
            elif line.startswith('# tree: '):
                meta['tree'] = line[len('# tree: '):]
            elif line.startswith('#') and 'written' in line:
                meta['written'] = line.lstrip('# ')
            if line.startswith('#') or line.startswith('binary\t') or not line:
                continue
            binary, case, result, detail = (line.split('\t') + [''] * 4)[:4]
            key = case_key(binary, case)
            rows[key] = (result, detail, case)
            order.append(key)
    return meta, rows, order


def case_key(binary, case):
    """A KTAP case is its number (its text may differ: a failing line)."""
    first = case.split(' ', 1)[0]
    return (binary, first if first.isdigit() else case)


def load_expect(path):
    expect = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#') or line.startswith('binary\t'):
                continue
            parts = line.split('\t')
            if len(parts) != 4 or not parts[3].strip():
                sys.exit(f'{path}:{n}: want binary, case, result, reason (tabs)')
            expect[case_key(parts[0], parts[1])] = (parts[2], parts[3], parts[1])
    return expect


def merged_order(a, b):
    """Rows of a in order, rows only in b after the last row of their binary."""
    out = list(a)
    seen = set(a)
    for key in b:
        if key in seen:
            continue
        last = max((i for i, k in enumerate(out) if k[0] == key[0]), default=len(out) - 1)
        out.insert(last + 1, key)
        seen.add(key)
    return out


def cell(row, other=None):
    """A result, its detail, and the case's text if it differs from other's."""
    if row is None:
        return '-'
    result, detail, case = row
    if other and other[2] != case:
        detail = f'{case}; {detail}' if detail else case
    if result == 'pass' and not (other and other[2] != case) or not detail:
        return result
    detail = detail.replace('|', '/')
    return f'{result}: {detail[:90]}'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--base', required=True)
    ap.add_argument('--full', required=True)
    ap.add_argument('--expect', required=True)
    ap.add_argument('-o', '--output', required=True)
    args = ap.parse_args()

    bmeta, base, border = load(args.base)
    have_full = os.path.exists(args.full)
    fmeta, full, forder = load(args.full) if have_full else ({}, {}, [])
    expect = load_expect(args.expect)
    problems = []
    lines = ['| binary | case | base | full series | note |',
             '|---|---|---|---|---|']
    counts = {'lost': 0, 'same': 0}
    for key in merged_order(border, forder):
        b, f = base.get(key), full.get(key)
        note = ''
        if b and b[0] not in OK:
            exp = expect.get(key)
            if not exp:
                note = 'FAIL: fails on base, not in the expectations'
                problems.append(f'{key[0]} / {b[2]}: {b[0]} on base, no expectation')
            elif exp[0] != b[0]:
                note = f'FAIL: expected {exp[0]} on base'
                problems.append(f'{key[0]} / {b[2]}: {b[0]} on base, expected {exp[0]}')
            else:
                note = f'expected: {exp[1]}'
        if have_full and b and b[0] == 'pass' and (f is None or f[0] != 'pass'):
            note = 'LOST' + (f': {note}' if note else '')
            counts['lost'] += 1
            problems.append(f'{key[0]} / {b[2]}: pass on base, '
                            f'{cell(f)} on the full series')
        for name, row in (('base', b), ('full series', f if have_full else None)):
            if key[0] in ('[boot]', '[end]') and row and row[0] not in OK:
                problems.append(f'{name}: {key[0]} {key[1]}: {cell(row)}')
                note = note or 'FAIL: the kernel'
        if b and f and b[0] == f[0]:
            counts['same'] += 1
        name = (b or f)[2].replace('|', '/')
        lines.append(f'| {key[0]} | {name} | {cell(b)} | '
                     f'{cell(f, b) if have_full else "not run"} | {note} |')
    for key, exp in expect.items():
        if key not in base:
            problems.append(f'expectation for {key[0]} / {exp[2]} ({exp[0]}): no such row on base')

    if not base:
        problems.append(f'{args.base}: no results')
    if have_full and not full:
        problems.append(f'{args.full}: no results')
    head = [f'base: {bmeta.get("kernel", "?")}; {bmeta.get("tree", "")} ({bmeta.get("written", "")})']
    if have_full:
        head.append(f'full series: {fmeta.get("kernel", "?")}; {fmeta.get("tree", "")} '
                    f'({fmeta.get("written", "")})')
        # The release, without the -gSHA of the build tree's commit.
        bver = [v.split('-g')[0] for v in bmeta.get('kernel', '').split(' ')[2:3]]
        fver = [v.split('-g')[0] for v in fmeta.get('kernel', '').split(' ')[2:3]]
        if bver != fver:
            head.append(f'WARNING: base is {bver}, the full series {fver}: '
                        'regenerate the base results (make selftests-record-base)')
    else:
        head.append(f'full series: not run ({args.full} missing: make selftests)')
    summary = [f'{len(lines) - 2} rows; {counts["same"]} the same on both; '
               f'{counts["lost"]} lost on the full series']
    if problems:
        summary.append('selftests: verdict FAIL')
        summary += [f'  {p}' for p in problems]
    else:
        summary.append('selftests: verdict PASS')
    text = '\n'.join(head + [''] + lines + [''] + summary) + '\n'
    with open(args.output, 'w') as f:
        f.write(text)
    print(text, end='')
    print(f'selftests: table in {args.output}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
