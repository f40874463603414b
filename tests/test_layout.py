"""The folders of ``solver/`` are layers: a module imports only from its own folder and the folders
its layer may use (``ALLOWED``). A test fails when an import crosses a forbidden line, when a module
outside ``engine/`` imports numba, and when a module grows past 1,000 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "solver"

# Each folder, and the folders it may import from (besides itself). The arrows all point down:
# common < engine < game < io < cgt and game < oracles; engine < tiers; then tables < solve < play < app.
ALLOWED: dict[str, set[str]] = {
    "common": set(),
    "engine": {"common"},
    "game": {"common", "engine"},
    "io": {"common", "engine", "game"},
    "cgt": {"common", "game", "io"},
    "oracles": {"common", "engine", "game"},
    "tiers": {"common", "engine"},
    "tables": {"common", "engine", "game", "io", "oracles", "tiers"},
    "solve": {"common", "engine", "game", "io", "cgt", "oracles", "tiers", "tables"},
    "play": {"common", "engine", "game", "io", "cgt", "oracles", "tables", "solve"},
    "app": {"common", "engine", "game", "io", "cgt", "oracles", "tiers", "tables", "solve", "play"},
}
TOP_LEVEL = {"__init__.py", "__main__.py"}   # the public API and ``python -m solver``
LONGEST = 1000


def imported_modules(source: str, path: Path) -> list[tuple[int, str]]:
    """Every module ``source`` imports, absolute (relative imports resolved as if it were the
    file ``path`` of the package), with its line."""
    tree = ast.parse(source)
    package = ["solver", *path.relative_to(PACKAGE).with_suffix("").parts][:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
    return found


def forbidden_imports(source: str, path: Path) -> list[str]:
    """The imports of ``source`` (as the file ``path``) that cross a forbidden line."""
    mine = path.relative_to(PACKAGE).parts[0]
    wrong = []
    for line, module in imported_modules(source, path):
        top, _, rest = module.partition(".")
        if top in ("numba", "llvmlite") and mine != "engine":
            wrong.append(f"line {line}: {module} (numba lives in engine/ only)")
        other = rest.partition(".")[0]
        if top == "solver" and other in ALLOWED and other != mine and other not in ALLOWED[mine]:
            wrong.append(f"line {line}: {module}")
    return wrong


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_folder_has_a_rule() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(ALLOWED)
    assert {p.name for p in PACKAGE.glob("*.py")} == TOP_LEVEL


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    if path.parent == PACKAGE:
        return  # the public API and ``python -m solver`` may gather from every folder
    wrong = forbidden_imports(path.read_text(encoding="utf-8"), path)
    assert not wrong, f"{path.relative_to(PACKAGE)} imports across a forbidden line: {wrong}"


def test_the_rule_catches_wrong_way_imports() -> None:
    """The checker itself: imports from a higher layer, relative or absolute, and numba outside
    engine/ are found; imports from lower layers and the standard library are not."""
    source = ("import json\nfrom solver.common.limits import Limits\nfrom solver.solve.analysis import Analyzer\n"
              "from ..app import cli\nimport numba\n")
    wrong = forbidden_imports(source, PACKAGE / "game" / "example.py")
    assert wrong == ["line 3: solver.solve.analysis", "line 3: solver.solve.analysis.Analyzer",
                     "line 4: solver.app", "line 4: solver.app.cli", "line 5: numba (numba lives in engine/ only)"]
    assert forbidden_imports(source.replace("import numba\n", ""), PACKAGE / "app" / "example.py") == []


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_a_thousand_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= LONGEST, f"{path.relative_to(PACKAGE)} has {lines} lines"
