#!/usr/bin/env python3
# The rules of the house (docs/hacking.md), checked on the built objects and the sources:
#  1. user/ has folders by role and no source at its root;
#  2. dependencies run one way: a folder calls only its own and lower folders (RANKS), so the
#     library (every folder but cli/) never calls a command;
#  3. no circle between files but those that are mutual by design (MUTUAL);
#  4. the library never writes to standard output (printf, puts, putchar, stdout);
#  5. no function in user/ is over 120 lines.
# Speaks TAP, as tests/run.sh reads it. Run after make (it reads build/user/**/*.o).
import collections
import glob
import os
import re
import subprocess
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

RANKS = ['util', 'parse', 'filter', 'kernel', 'lists', 'fleet', 'service', 'cli']
# Files that call each other by design: the layout registry and its layouts; a list load
# and its named lists (a load whose sources are named lists' goes through rebuild.c's
# list_load_named(), which builds them and the other lists into the union with load.c's
# list_load_union(), as a rebuild from the state does).
MUTUAL = [
    {'filter/layout', 'filter/layout_bits', 'filter/layout_blocked', 'filter/layout_kernel',
     'filter/filter', 'filter/bloom_plan'},
    {'lists/load', 'lists/rebuild'},
]
FUNCTION_MAX = 120
STDOUT_SYMBOLS = {'printf', 'puts', 'putchar', 'vprintf', 'stdout', '__printf_chk',
                  '__vprintf_chk'}

results = []


def check(ok, name, details=()):
    results.append((ok, name, list(details)))


def objects():
    objs = {}
    for o in glob.glob('build/user/*/*.o'):
        unit = os.path.relpath(o, 'build/user')[:-2]
        # An object whose source moved or went is left over from an older build.
        if os.path.exists('user/%s.c' % unit):
            objs[unit] = o
    return objs


def symbols(objs):
    defs, uses = {}, collections.defaultdict(set)
    for unit, o in objs.items():
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'TDBRV':
                defs[p[2]] = unit
            elif len(p) == 2 and p[0] == 'U':
                uses[unit].add(p[1])
    return defs, uses


def folder(unit):
    return unit.split('/')[0]


def layers(objs, defs, uses):
    bad = []
    for unit in sorted(objs):
        rank = RANKS.index(folder(unit)) if folder(unit) in RANKS else -1
        if rank < 0:
            bad.append('%s: a folder not in the ranks %s' % (unit, RANKS))
            continue
        for sym in sorted(uses[unit]):
            to = defs.get(sym)
            if to and RANKS.index(folder(to)) > rank:
                bad.append('%s calls %s of %s (%s is above %s)' %
                           (unit, sym, to, folder(to), folder(unit)))
    check(not bad, 'dependencies run one way: %s' % ' -> '.join(RANKS), bad)


def circles(objs, defs, uses):
    graph = collections.defaultdict(set)
    for unit in objs:
        for sym in uses[unit]:
            to = defs.get(sym)
            if to and to != unit:
                graph[unit].add(to)
    # Strongly connected components (Tarjan), each bigger than one file a circle.
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(objs):
        if v not in index:
            visit(v)
    bad = [' <-> '.join(sorted(c)) for c in comps if not any(c <= m for m in MUTUAL)]
    check(not bad, 'no circle between files but the layout registry and a load with its named '
          'lists', bad)


def no_stdout(objs, uses):
    bad = []
    for unit in sorted(objs):
        if folder(unit) == 'cli':
            continue
        hit = sorted(uses[unit] & STDOUT_SYMBOLS)
        if hit:
            bad.append('%s uses %s' % (unit, ', '.join(hit)))
    check(not bad, 'the library (user/ but cli/) never writes to standard output', bad)


def function_lengths():
    bad = []
    start = re.compile(r'^[A-Za-z_].*\)\s*$')
    for path in sorted(glob.glob('user/**/*.c', recursive=True)):
        lines = open(path, encoding='utf-8').read().split('\n')
        name, body = None, None
        for i, line in enumerate(lines):
            if line == '{' and i > 0:
                # The signature ends on the line before; its name is on the line that opens it.
                j = i - 1
                while j > 0 and not start.match(lines[j]) and lines[j][:1] in ' \t':
                    j -= 1
                m = re.search(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(', lines[j])
                name, body = (m.group(1) if m else '?'), i
            elif line == '}' and body is not None:
                n = i - body + 1
                if n > FUNCTION_MAX:
                    bad.append('%s: %s is %d lines' % (path, name, n))
                name, body = None, None
    check(not bad, 'no function in user/ over %d lines' % FUNCTION_MAX, bad)


def root_files():
    bad = [f for f in sorted(os.listdir('user')) if os.path.isfile(os.path.join('user', f))]
    check(not bad, 'no source file at user/\'s root', bad)


def main():
    objs = objects()
    if not objs:
        print('not ok 1 - no object under build/user: run make first')
        return 1
    defs, uses = symbols(objs)
    root_files()
    layers(objs, defs, uses)
    circles(objs, defs, uses)
    no_stdout(objs, uses)
    function_lengths()
    failed = 0
    for n, (ok, name, details) in enumerate(results, 1):
        print('%sok %d - %s' % ('' if ok else 'not ', n, name))
        for d in details:
            print('#   ' + d)
        failed += not ok
    print('1..%d' % len(results))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
