#!/usr/bin/env python3
"""No files in src/ call one another in a circle (src/README.md).

Reads the object files the build made from src/ with nm: file A uses
file B when A leaves undefined a global symbol B defines (a function, a
variable, a GType getter behind a cast macro).  Any strongly connected
group of two or more files is a circle; the test names its files and,
for each edge inside it, the symbols that make it.

    test-no-circles.py BUILD_DIR/src
"""
import collections
import pathlib
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(['nm', '--format=posix', str(obj)], check=True,
                         capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in 'TDBRG':
            defined.add(name)
        elif kind == 'U':
            undefined.add(name)
    return defined, undefined


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the groups of files that reach
    each other."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(sorted(group))
    return groups


def main():
    src = pathlib.Path(sys.argv[1])
    objects = sorted(src.glob('**/*.c.o'))
    if len(objects) < 10:
        print(f'Bail out! only {len(objects)} object files under {src}')
        return 1
    defined, undefined = {}, {}
    for obj in objects:
        name = obj.name[:-len('.c.o')]
        defined[name], undefined[name] = symbols(obj)
    owner = {}
    for name, syms in defined.items():
        for sym in syms:
            owner.setdefault(sym, name)
    graph = collections.defaultdict(set)
    why = collections.defaultdict(set)
    for name, syms in undefined.items():
        graph[name]
        for sym in syms:
            target = owner.get(sym)
            if target is not None and target != name:
                graph[name].add(target)
                why[(name, target)].add(sym)

    circles = [g for g in strongly_connected(graph) if len(g) > 1]
    edges = sum(len(v) for v in graph.values())
    print('1..1')
    print(f'# {len(objects)} files, {edges} uses between them')
    for group in circles:
        print(f'# circle: {" ".join(group)}')
        for a in group:
            for b in sorted(graph[a] & set(group)):
                print(f'#   {a} -> {b}: {" ".join(sorted(why[(a, b)]))}')
    if circles:
        print(f'not ok 1 - {len(circles)} circle(s) of files in src/')
        return 1
    print('ok 1 - no circle of files in src/')
    return 0


if __name__ == '__main__':
    sys.exit(main())
