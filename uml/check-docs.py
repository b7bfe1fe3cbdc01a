#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the documentation: README.md, docs/*.md and harness/README.md.

  tables  every block that uml/docs_tables.py generates is what it prints
          now (the map of README.md, the seed table, the suites): a stale
          one is shown as a diff, with the command that writes it again;
  links   every relative link resolves: the file or directory exists in
          the checkout, and a #fragment names a heading of the Markdown
          file it points to (GitHub's slugs; a slug with "--" is refused,
          as GitLab makes it another);
  map     the map of README.md (its section "Documentation") links every
          docs/*.md, and each of those files opens, under its title, with
          the question it answers (a "> ...?" paragraph).

usage: check-docs.py [--host-harness PATH]
Prints what it found; exits 0 when all holds, 1 when something does not.
Python 3.11, standard library only.
"""
import argparse
import difflib
import glob
import os
import re
import sys

# No __pycache__ in the checkout.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_tables  # noqa: E402

ROOT = docs_tables.ROOT
FILES = ('README.md', 'docs/*.md', 'harness/README.md')
MAP_HEADING = 'Documentation'
REGENERATE = 'python3 uml/docs_tables.py --write (or make docs)'

LINK = re.compile(r'(?<!\\)!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?'
                  r'(?:\s+"[^"]*")?\s*\)')
REF_DEF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+".*")?\s*$')
HEADING = re.compile(r'^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def rel(path):
    return os.path.relpath(path, ROOT)


def prose_lines(text):
    """(line number, line with code spans blanked, line) outside code blocks.

    An indented line after a blank line or after code is code (a list
    item's indented paragraph is taken for code too: not checked).
    """
    out = []
    fence = None
    after_blank_or_code = True
    for n, line in enumerate(text.splitlines(), 1):
        if fence:
            if line.lstrip().startswith(fence):
                fence = None
            continue
        m = re.match(r'^ {0,3}(`{3,}|~{3,})', line)
        if m:
            fence = m.group(1)
            continue
        if not line.strip():
            after_blank_or_code = True
            continue
        if line.startswith(('    ', '\t')) and after_blank_or_code:
            continue
        after_blank_or_code = False
        prose = re.sub(r'(`+)(?:(?!\1).)+?\1',
                       lambda m: ' ' * len(m.group(0)), line)
        out.append((n, prose, line))
    return out


def slug(heading):
    """GitHub's anchor of a heading's text (before duplicates are numbered)."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)
    text = re.sub(r'<[^>]+>', '', text)
    text = text.replace('`', '').lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


_ANCHORS = {}


def anchors(path):
    """The fragments a file's headings answer to (slug -> heading)."""
    cache = _ANCHORS
    if path not in cache:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        found = {}
        seen = {}
        for _, _, line in prose_lines(text):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            if s in seen:
                seen[s] += 1
                s = f'{s}-{seen[s]}'
            else:
                seen[s] = 0
            found[s] = m.group(2)
        cache[path] = found
    return cache[path]


def check_tables(args, problems):
    """Every generated block as its generator prints it now."""
    count = 0
    cache = {}
    for path in docs_tables.doc_files():
        try:
            lines, found = docs_tables.blocks(path)
        except docs_tables.SourceError as e:
            problems.append(str(e))
            continue
        for name, start, end in found:
            count += 1
            try:
                new = docs_tables.generate(name, args, cache)
            except docs_tables.SourceError as e:
                problems.append(f'{rel(path)}: table {name}: cannot '
                                f'generate it: {e}')
                continue
            if lines[start:end] != new:
                diff = difflib.unified_diff(
                    lines[start:end], new,
                    f'{rel(path)} (table {name}, as it is)',
                    f'{rel(path)} (table {name}, as uml/docs_tables.py '
                    'prints it)', lineterm='', n=1)
                problems.append(f'{rel(path)}:{start}: table {name} is '
                                f'stale; write it again: {REGENERATE}\n' +
                                '\n'.join('    ' + d for d in diff))
    return count


def links_of(path):
    """(line number, target) of every link of a Markdown file."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    found = []
    for n, line, _ in prose_lines(text):
        m = REF_DEF.match(line)
        if m:
            found.append((n, m.group(1)))
            continue
        for m in LINK.finditer(line):
            found.append((n, m.group(2)))
    return found


def check_link(path, target):
    """None, or what is wrong with a relative link of PATH."""
    if not target:
        return 'empty link'
    if SCHEME.match(target):
        return None
    file_part, _, fragment = target.partition('#')
    if file_part.startswith('/'):
        dest = os.path.join(ROOT, file_part.lstrip('/'))
    elif file_part:
        dest = os.path.join(os.path.dirname(path), file_part)
    else:
        dest = path
    dest = os.path.normpath(dest)
    if not dest.startswith(ROOT + os.sep) and dest != ROOT:
        return f'{target}: outside the checkout'
    if not os.path.exists(dest):
        return f'{target}: no file {rel(dest)}'
    if not fragment:
        return None
    if not dest.endswith('.md'):
        return f'{target}: a #fragment of a file that is not Markdown'
    found = anchors(dest)
    if fragment not in found:
        return f'{target}: {rel(dest)} has no heading with the anchor #{fragment}'
    if '--' in fragment:
        return (f'{target}: the anchor has "--", which GitLab makes "-": '
                f'reword the heading "{found[fragment]}"')
    return None


def check_links(problems):
    count = 0
    for path in docs_tables.doc_files(FILES):
        for n, target in links_of(path):
            if SCHEME.match(target):
                continue
            count += 1
            wrong = check_link(path, target)
            if wrong:
                problems.append(f'{rel(path)}:{n}: dead link {wrong}')
    return count


def check_map(problems):
    """README's map names every topic file, each opening with its question."""
    readme = os.path.join(ROOT, 'README.md')
    with open(readme, encoding='utf-8') as f:
        text = f.read()
    section = []
    inside = False
    for _, line, raw in prose_lines(text):
        m = HEADING.match(raw)
        if m and len(m.group(1)) <= 2:
            inside = m.group(2).strip() == MAP_HEADING
            continue
        if inside:
            section.append(line)
    if not section:
        problems.append(f'README.md: no section "## {MAP_HEADING}" (the map '
                        'of the documentation)')
        return 0
    named = set()
    for line in section:
        for m in LINK.finditer(line):
            target = m.group(2).partition('#')[0]
            if target and not SCHEME.match(target):
                named.add(os.path.normpath(os.path.join(ROOT, target)))
    topics = sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')))
    for path in topics:
        if path not in named:
            problems.append(f'README.md: the map ("## {MAP_HEADING}") does '
                            f'not name {rel(path)}')
        if not docs_tables.title_and_question(path):
            problems.append(f'{rel(path)}: does not open, under its title, '
                            'with the question it answers ("> ...?")')
    for path in sorted(named):
        if not os.path.exists(path):
            problems.append(f'README.md: the map names {rel(path)}, which '
                            'does not exist')
    return len(topics)


def main():
    parser = argparse.ArgumentParser(
        description='Check generated tables, relative links and the map.')
    parser.add_argument('--host-harness', default=docs_tables.HOST_HARNESS,
                        help='the host build of the harness (default: %(default)s)')
    args = parser.parse_args()
    problems = []
    tables = check_tables(args, problems)
    links = check_links(problems)
    topics = check_map(problems)
    for problem in problems:
        print(f'check-docs: FAIL: {problem}')
    if problems:
        print(f'check-docs: FAIL: {len(problems)} problem(s)' +
              (f'; {REGENERATE} writes the generated tables again'
               if any('table' in p.split('\n')[0] for p in problems) else ''))
        return 1
    print(f'check-docs: PASS: {tables} generated tables up to date, '
          f'{links} relative links resolve in {len(docs_tables.doc_files(FILES))} files, '
          f'the map of README.md names all {topics} topic files')
    return 0


if __name__ == '__main__':
    sys.exit(main())
