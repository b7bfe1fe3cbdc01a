#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A negative control for uml/selftests/compare.py: copy a results.tsv with
its first passing case turned into a failure, which the comparison with the
original must call lost.

usage: control.py RESULTS OUT
"""
import sys


def main():
    src, dst = sys.argv[1:3]
    done = False
    with open(src) as f, open(dst, 'w') as out:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if (not done and not line.startswith('#') and len(cols) == 4 and
                    cols[2] == 'pass' and not cols[1].startswith('[')):
                cols[2:4] = ['fail', 'negative control: failed on purpose']
                line = '\t'.join(cols) + '\n'
                done = True
            out.write(line)
    if not done:
        sys.exit(f'control.py: no passing case in {src}')


if __name__ == '__main__':
    main()
