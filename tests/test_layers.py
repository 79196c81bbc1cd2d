"""The packages' dependencies point one way: engine, vision <- tracker <- webui <- box <- cli,
with the club server beside webui, the web kit both sites share (webkit) on the engine alone,
and the lab (sim) and the benchmarks (bench) on the side.

Every ``.py`` file is parsed with ``ast`` (nothing is imported), and every import counts: at the
top, inside functions, under ``TYPE_CHECKING``, and ``importlib.import_module("...")`` with a
literal name. A failure lists each offending import as ``file:line``.
"""

from __future__ import annotations

import ast
import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("engine", "vision", "tracker", "webkit", "webui", "club", "box", "cli", "sim", "models", "bench", "tests")
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}

#: Which project packages each package may import (itself always). ``models`` holds only the
#: shipped weights and their folder, so every layer from vision up may name it.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "models": set(),
    "vision": {"models"},
    "tracker": {"engine", "vision", "models"},
    "webkit": {"engine"},  # what both sites share: lock-out, CSRF, QR codes, the base page, language
    "webui": {"engine", "tracker", "webkit"},
    "club": {"engine", "webkit"},  # the club server stands beside webui on the engine (and the kit) alone
    "box": {"engine", "vision", "tracker", "webkit", "webui", "models"},
    "cli": {"engine", "vision", "tracker", "webkit", "webui", "club", "box", "sim", "models"},
    "sim": {"engine", "vision", "tracker", "models"},
    "bench": {"engine", "vision", "tracker", "webkit", "webui", "club", "box", "cli", "sim", "models"},
}


@dataclass(frozen=True)
class Import:
    file: Path
    line: int
    module: str  # the absolute dotted module named
    names: tuple[str, ...] = ()  # what ``from module import ...`` takes

    @property
    def top(self) -> str:
        return self.module.split(".")[0]

    def where(self) -> str:
        taken = f" ({', '.join(self.names)})" if self.names else ""
        return f"{self.file.relative_to(ROOT)}:{self.line}: {self.module}{taken}"


def python_files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module of a (possibly relative) ``from ... import``."""
    if not node.level:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.cache  # every check that walks a package asks for the same files' imports
def imports(path: Path) -> tuple[Import, ...]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(path, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(Import(path, node.lineno, resolve(path, node), tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__"):
                found.append(Import(path, node.lineno, node.args[0].value))
    return tuple(found)


def all_imports(package: str) -> list[Import]:
    return [imp for path in python_files(package) for imp in imports(path)]


def report(problem: str, bad: list[Import]) -> str:
    return f"{problem} ({len(bad)}):\n" + "\n".join("  " + imp.where() for imp in bad)


def test_every_package_is_found():
    for package in (*ALLOWED, "tests"):
        assert python_files(package), f"no .py files under {package}/"


def test_engine_imports_only_the_standard_library():
    bad = [imp for imp in all_imports("engine") if imp.top != "engine" and imp.top not in STDLIB]
    assert not bad, report("engine must import only the standard library", bad)


@pytest.mark.parametrize("package", [p for p in ALLOWED if p != "engine"])
def test_each_package_imports_only_the_layers_below_it(package):
    allowed = ALLOWED[package] | {package}
    bad = [imp for imp in all_imports(package) if imp.top in PROJECT and imp.top not in allowed]
    assert not bad, report(f"{package} may import only {', '.join(sorted(allowed))} among the project's "
                           "packages", bad)


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@pytest.mark.parametrize("package", list(ALLOWED))  # tests may reach into what they test
def test_no_package_imports_another_packages_private_names(package):
    bad = []
    for imp in all_imports(package):
        if imp.top not in PROJECT or imp.top == package:
            continue
        if any(is_private(part) for part in imp.module.split(".")) or any(map(is_private, imp.names)):
            bad.append(imp)
    assert not bad, report(f"{package} imports private (underscore) names of other packages", bad)


def test_tests_import_each_other_by_package_path():
    """``from tests.kit.table_site import ...``, never ``from table_site import ...`` (which works
    only with that folder on sys.path) nor a relative import."""
    helpers = {p.stem for p in python_files("tests")} | {p.name for p in (ROOT / "tests").rglob("*") if p.is_dir()}
    helpers -= {"__init__", "__pycache__"}
    bad = []
    for path in python_files("tests"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                bad.append(Import(path, node.lineno, "." * node.level + (node.module or "")))
            elif isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                bad += [Import(path, node.lineno, name) for name in names
                        if name.split(".")[0] in helpers and name.split(".")[0] not in PROJECT]
    assert not bad, report("tests must import each other as tests.package.module", bad)


def is_test_module(name: str) -> bool:
    """A module pytest collects or loads itself (``test_*.py``, ``conftest.py``), by its last name."""
    return name.startswith("test_") or name == "conftest"


def test_tests_share_helpers_only_through_the_kit():
    """What tests share lives in ``tests/kit/``: no test module or conftest imports another one
    (a test module run for its helpers runs its module-level checks, and its tests move with it),
    and outside the kit ``tests/`` holds only test modules, conftests and package ``__init__``s."""
    kit = ROOT / "tests" / "kit"
    bad = [imp for imp in all_imports("tests") if imp.top == "tests"
           and (is_test_module(imp.module.split(".")[-1]) or any(map(is_test_module, imp.names)))]
    assert not bad, report("tests import helpers from tests.kit, never from a test module or conftest", bad)
    strays = [str(p.relative_to(ROOT)) for p in python_files("tests")
              if kit not in p.parents and not is_test_module(p.stem) and p.name != "__init__.py"]
    assert not strays, f"helpers outside tests/kit/ ({len(strays)}): " + ", ".join(strays)


def test_bench_imports_no_tests():
    bad = [imp for imp in all_imports("bench") if imp.top == "tests"]
    assert not bad, report("bench must not import tests", bad)


def test_the_checker_sees_what_it_should(tmp_path, monkeypatch):
    """The parser itself: relative, nested and dynamic imports all come out as absolute names."""
    pkg = ROOT / "webui"
    sample = pkg / "_layers_probe.py"  # never written: parsed from text below
    text = ("from . import view\nfrom .sub import thing\n"
            "def f():\n    import vision.detector\n    from box.config import _private\n"
            "    importlib.import_module('sim.toy')\n")
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text)
    found = {(i.line, i.module, i.names) for i in imports(sample)}
    assert found == {(1, "webui", ("view",)), (2, "webui.sub", ("thing",)), (4, "vision.detector", ()),
                     (5, "box.config", ("_private",)), (6, "sim.toy", ())}
