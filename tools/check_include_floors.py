#!/usr/bin/env python3
"""The include graph of src/ against the floors of docs/architecture.md.

A folder may include its own headers and those of folders on lower floors,
or on its own floor when that leaves the folders without a circle. Prints
every include that points up or closes a circle, and exits 1 if there is
one. Run by CTest (IncludeFloors) and by hand: python3 tools/check_include_floors.py
"""
import pathlib
import re
import sys

# Lowest first. A folder's floor bounds what it may include; the engine's
# folders share one floor and are kept free of circles among themselves.
FLOORS = [
    ("ground: the argument language and small helpers", ["spec", "util"]),
    ("vocabulary: outcome records, error types, phases, names, devices", ["results"]),
    ("data: trace files and the dataset", ["data"]),
    ("engine (torch)", ["ops", "inputs", "check", "timing", "backends", "observe", "roofline", "runner",
                        "kernels", "workers", "judge", "suite", "facto", "dataset", "models", "trace", "override",
                        "python", "mpi"]),
    ("presentation and storage (torch-free)", ["report"]),
    ("LLM kernel generation (torch-free)", ["llm"]),
    ("the session: every entry point", ["session"]),
    ("LLM generation on the session", ["llm/engine"]),
    ("front ends: the command line and the Python module", ["cli", "pymodule"]),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path: pathlib.Path, src: pathlib.Path) -> str:
    parts = path.relative_to(src).parts
    if parts[0] == "llm" and len(parts) > 2 and parts[1] == "engine":
        return "llm/engine"
    return parts[0]


def included_folder(header: str, folders: set) -> str | None:
    parts = header.split("/")
    if len(parts) < 2:
        return None  # a system-style or same-folder include
    if parts[0] == "llm" and len(parts) > 2 and parts[1] == "engine":
        return "llm/engine"
    return parts[0] if parts[0] in folders else None


def find_cycle(edges: dict) -> list | None:
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    src = root / "src"
    floor = {folder: i for i, (_, folders) in enumerate(FLOORS) for folder in folders}
    problems, edges = [], {}
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cpp", ".cu") or not path.is_file():
            continue
        here = folder_of(path, src)
        if here not in floor:
            problems.append(f"{path.relative_to(root)}: folder {here}/ is on no floor (add it to FLOORS)")
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in INCLUDE.finditer(text):
            there = included_folder(match.group(1), set(floor))
            if there is None or there == here:
                continue
            line = text.count("\n", 0, match.start()) + 1
            if floor[there] > floor[here]:
                problems.append(f"{path.relative_to(root)}:{line}: includes {match.group(1)}: {there}/ is on the "
                                f"floor above ({FLOORS[floor[there]][0]}) {here}/ ({FLOORS[floor[here]][0]})")
            edges.setdefault(here, set()).add(there)
    cycle = find_cycle(edges)
    if cycle:
        problems.append("a circle between folders: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    if not problems:
        print(f"include floors: {sum(len(e) for e in edges.values())} folder-to-folder arrows, none up, no circle")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
