#!/usr/bin/env python3
"""Function lengths in the workspace's Rust sources, as rustfmt lays them out:
a `fn` line and the line at the same indent that closes it. Prints the
longest functions and how many are over a limit.

    scripts/fn-lengths.py [--over 80] [--top 10] [PATH...]
"""
import argparse, pathlib, re

FN = re.compile(r'^(\s*)(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)')

def lengths(path):
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    # A file's own tests come last, after `#[cfg(test)]`: not counted.
    if "#[cfg(test)]" in lines:
        lines = lines[: lines.index("#[cfg(test)]")]
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m or line.rstrip().endswith(";"):
            continue
        indent = m.group(1)
        for j in range(i + 1, len(lines)):
            if lines[j] == indent + "}":
                yield (j - i + 1, f"{path}:{i + 1}", m.group(7))
                break
            if lines[j].startswith(indent) and FN.match(lines[j]) and FN.match(lines[j]).group(1) == indent:
                break

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--over", type=int, default=80)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("paths", nargs="*", default=["crates"])
    a = ap.parse_args()
    found = []
    for root in a.paths:
        for p in sorted(pathlib.Path(root).rglob("*.rs")):
            if "/tests/" in str(p) or p.name == "tests.rs" or "/benches/" in str(p) or "/target/" in str(p):
                continue
            found.extend(lengths(p))
    found.sort(reverse=True)
    for n, where, name in found[: a.top]:
        print(f"{n:5} {name} {where}")
    print(f"functions over {a.over} lines: {sum(1 for f in found if f[0] > a.over)}")

if __name__ == "__main__":
    main()
