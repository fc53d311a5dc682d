#!/usr/bin/env python3
"""The largest import cycle among a crate's top-level modules: every
`crate::NAME` path anywhere in a module's files (not only `use` lines)
counts as that module using NAME.

    scripts/module-cycles.py crates/conversations/src
"""
import pathlib, re, sys

def main(src):
    src = pathlib.Path(src)
    modules = {}
    for p in src.rglob("*.rs"):
        rel = p.relative_to(src).parts
        if rel[0] in ("lib.rs", "main.rs"):
            continue
        name = rel[0][:-3] if rel[0].endswith(".rs") else rel[0]
        text = p.read_text(encoding="utf-8", errors="replace")
        if "#[cfg(test)]" in text:
            text = text[: text.index("#[cfg(test)]")]
        uses = set(re.findall(r"crate::(\w+)", text))
        # `use crate::{a::X, b}`: every top-level name in the braces.
        for group in re.findall(r"crate::\{([^}]*(?:\{[^}]*\}[^}]*)*)\}", text):
            depth, word = 0, ""
            for part in re.split(r"([{},])", group):
                if part == "{": depth += 1
                elif part == "}": depth -= 1
                elif part == ",": continue
                elif depth == 0 and part.strip():
                    uses.add(re.match(r"\s*(\w+)", part).group(1))
        modules.setdefault(name, set()).update(uses)
    graph = {m: {u for u in us if u in modules and u != m} for m, us in modules.items()}
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
    def strong(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop(); on.discard(w); scc.append(w)
                if w == v: break
            sccs.append(scc)
    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            strong(v)
    biggest = max(sccs, key=len)
    print(f"{len(modules)} modules; the largest cycle has {len(biggest)}: {' '.join(sorted(biggest))}")
    if "--edges" in sys.argv:
        for m in sorted(biggest):
            print(f"  {m} -> {' '.join(sorted(graph[m] & set(biggest)))}")

args = [a for a in sys.argv[1:] if not a.startswith("--")]
main(args[0] if args else "crates/conversations/src")
