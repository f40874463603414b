"""The folders of ``solver/`` are layers: a module imports only from its own folder and the folders
its layer may use (``ALLOWED``). A test fails when an import crosses a forbidden line, when a module
outside ``engine/`` imports numba, and when a module grows past 1,000 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "solver"

# Each folder, and the folders it may import from (besides itself). The arrows all point down:
# common < engine < game < io < cgt; game < oracles < tiers < tables < solve < play < app.
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


def folder_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module the file imports, absolute, with its line (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = ["solver", *path.relative_to(PACKAGE).with_suffix("").parts]
    package = here[:-1] if path.name != "__init__.py" else here[:-1]
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


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_folder_has_a_rule() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(ALLOWED)
    assert {p.name for p in PACKAGE.glob("*.py")} == TOP_LEVEL


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    if path.parent == PACKAGE:
        return  # the public API may gather from every folder
    mine = folder_of(path)
    wrong = []
    for line, module in imported_modules(path):
        parts = module.split(".")
        if parts[0] != "solver" or len(parts) < 2 or parts[1] in ("__version__",):
            if parts[0] == "numba" or parts[0] == "llvmlite":
                if mine != "engine":
                    wrong.append(f"line {line}: {module} (numba lives in engine/ only)")
            continue
        other = parts[1]
        if other in ALLOWED and other != mine and other not in ALLOWED[mine]:
            wrong.append(f"line {line}: {module}")
    assert not wrong, f"{path.relative_to(PACKAGE)} imports across a forbidden line: {wrong}"


def test_the_rule_catches_a_wrong_way_import(tmp_path: Path) -> None:
    """The checker itself: an import from a higher layer is found."""
    bad = PACKAGE / "game" / "_layout_probe.py"
    assert not bad.exists()
    tree_text = "from solver.solve.analysis import Analyzer\nfrom ..app import cli\n"
    probe = tmp_path / "probe.py"
    probe.write_text(tree_text)
    # resolve as if the file lived in game/
    found = [m for _, m in imported_modules_at(probe, PACKAGE / "game" / "probe.py")]
    assert "solver.solve.analysis" in found and "solver.app" in found


def imported_modules_at(source: Path, pretend: Path) -> list[tuple[int, str]]:
    tree = ast.parse(source.read_text())
    package = ["solver", *pretend.relative_to(PACKAGE).with_suffix("").parts][:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level else []
            out.append((node.lineno, ".".join(base + ([node.module] if node.module else [])) if node.level
                        else node.module or ""))
    return out


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_a_thousand_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= LONGEST, f"{path.relative_to(PACKAGE)} has {lines} lines"
