"""The import graph keeps the layers one way (issue: array-only task packages).

- the array modules of a task package (everything but its ``task.py``) import no file,
  batch, report or CLI layer: they take arrays and return analyses;
- a task's ``task.py`` reads files through :mod:`cvcheck.media` but never reaches up into
  batch, report or CLI code;
- ``vision`` and ``stats`` are pure; nothing in ``cvcheck`` imports ``cli``;
- no import cycles between cvcheck modules (imports inside functions included).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "cvcheck"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mod = _module(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [f"{target}.{a.name}" for a in node.names]
            else:
                target, names = node.module or "", [f"{node.module}.{a.name}" for a in node.names]
            if target.startswith("cvcheck"):
                out.add(target)
                out.update(n for n in names if _known(n))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("cvcheck"))
    return {m for m in out if _known(m) and m != mod}


def _known(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT.parent / rel).with_suffix(".py").is_file() or (ROOT.parent / rel / "__init__.py").is_file()


GRAPH = {_module(p): _imports(p) for p in ROOT.rglob("*.py")}


def _layer_violations(prefixes: tuple[str, ...], forbidden: tuple[str, ...], *, skip: tuple[str, ...] = ()) -> list:
    return sorted((m, d) for m, deps in GRAPH.items() if m.startswith(prefixes) and not m.endswith(skip)
                  for d in deps if d.startswith(forbidden))


@pytest.mark.parametrize("task", ["maze", "sudoku"])
def test_task_packages_are_array_only_but_for_task_py(task: str) -> None:
    up = ("cvcheck.batch", "cvcheck.report", "cvcheck.cli", "cvcheck.audit", "cvcheck.demo")
    assert _layer_violations((f"cvcheck.{task}",), ("cvcheck.media",) + up, skip=(".task",)) == []
    assert _layer_violations((f"cvcheck.{task}.task",), up) == []


def test_pure_layers_and_no_upward_cli_imports() -> None:
    assert _layer_violations(("cvcheck.vision", "cvcheck.stats"),
                             ("cvcheck.media", "cvcheck.batch", "cvcheck.report", "cvcheck.cli",
                              "cvcheck.maze", "cvcheck.sudoku", "cvcheck.judge")) == []
    assert [(m, d) for m, d in _layer_violations(("cvcheck",), ("cvcheck.cli",))
            if not m.startswith("cvcheck.cli")] == []


def test_no_import_cycles() -> None:
    def leaf(m: str) -> bool:  # a package's __init__ re-exporting its modules is not a cycle
        return (ROOT.parent / Path(*m.split(".")) / "__init__.py").is_file()

    edges = {m: {d for d in deps if not leaf(d)} for m, deps in GRAPH.items() if not leaf(m)}
    cycles, state = [], {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(edges.get(m, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    assert cycles == []


def test_readme_module_map_matches_the_tree() -> None:
    """Every path the README's "Where things are" table names exists, and every package of
    cvcheck is named there (the map is kept with the tree)."""
    import re

    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text(encoding="utf-8")
    table = text[text.index("## Where things are"):]
    named = set()
    for row in re.findall(r"^\| `([^|]+)\|", table, flags=re.M):
        where = row.split("|")[0]
        names = re.findall(r"`?([\w./]+)`?", where)
        base = names[0].rstrip("/").rpartition("/")[0]  # later bare names sit beside the first
        for name in names:
            path = name if "/" in name.rstrip("/") or not base else f"{base}/{name}"
            named.add(path.rstrip("/"))
            assert (root / path).exists(), f"README map names {path}, which does not exist"
    for pkg in sorted(p.parent.relative_to(root).as_posix() for p in (root / "cvcheck").glob("*/__init__.py")):
        assert pkg in named, f"cvcheck package {pkg} is missing from the README's module map"
