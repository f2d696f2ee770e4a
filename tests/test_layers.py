"""The layer check: every import under ``src/muse`` points down the layers of docs/architecture.md.

The layers (docs/architecture.md §2, ARCHITECTURE.md §2), lowest first::

    core ← store ← agents ← works ← patterns ← knowledge ← planning ← context ← quality
         ← flow ← evaluation ← offline ← worker ← web ← cli ← demo

A module may import its own package and any package *before* it, never one after it. Every
import counts: module level, inside functions (lazy imports), under ``TYPE_CHECKING``, relative
imports, and ``importlib.import_module("muse.…")`` with a literal name. A package under
``src/muse`` that is not in the table fails the check, so a new package gets a place on purpose.

There are no exceptions: no allowlist of known wrong-way arrows or of imports behind a face (the
last three, evaluation's reads of flow's tables, became flow functions). A new exception would be
a decision to record in docs/architecture.md §2 first. This runs in ``make test`` (so CI) and
``make lint``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: tuple[str, ...] = (
    "core",
    "store",
    "agents",
    "works",
    "patterns",
    "knowledge",
    "planning",
    "context",
    "quality",
    "flow",
    "evaluation",
    "offline",
    "worker",
    "web",
    "cli",
    "demo",
)
_TOP = "muse"  # muse/__init__.py and other top-level modules: composition, may import anything


@dataclass(frozen=True)
class Arrow:
    module: str  # dotted name of the importing module
    target: str  # dotted name it imports
    line: int
    names: tuple[str, ...] = ()  # ``from target import a, b``: a and b

    def __str__(self) -> str:
        return f"{self.module}:{self.line} → {self.target}"


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if not node.level:
        base = node.module or ""
        return [base] + [f"{base}.{a.name}" for a in node.names]
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    base = ".".join(anchor + ([node.module] if node.module else []))
    return [base] + [f"{base}.{a.name}" for a in node.names]


def imports_of(path: Path, src: Path) -> list[Arrow]:
    """Every ``muse.…`` name imported by one file, wherever the import statement stands."""
    module = module_name(path, src)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    arrows: list[Arrow] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            # ``from muse.x import y``: y may be a submodule (muse.x.y) or a name in muse.x; the
            # package of both is the same, so the module itself decides the layer — except for
            # ``from muse import x``, where each name is a package of its own.
            base, *named = _absolute(node, module, path.name == "__init__.py")
            if base != _TOP:
                imported = tuple(a.name for a in node.names)
                arrows.append(Arrow(module, base, node.lineno, imported))
                continue
            names = named
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        else:
            continue
        arrows += [Arrow(module, n, node.lineno) for n in names if n.split(".")[0] == _TOP]
    return [a for a in arrows if a.target.split(".")[0] == _TOP]


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == _TOP else _TOP


def _rank(package: str, path: str) -> int:
    if package == _TOP:
        return len(LAYERS)
    if package not in LAYERS:
        raise AssertionError(
            f"{path}: package muse.{package} has no place in LAYERS (tests/test_layers.py): "
            "decide its layer and record it in docs/architecture.md §2"
        )
    return LAYERS.index(package)


def wrong_way(src: Path) -> list[Arrow]:
    """Arrows from a package to a package above it, in file and line order."""
    found: list[Arrow] = []
    for path in sorted((src / _TOP).rglob("*.py")):
        for arrow in imports_of(path, src):
            source, target = layer_of(arrow.module), layer_of(arrow.target)
            if source in (target, _TOP):
                continue
            if _rank(target, str(path)) > _rank(source, str(path)):
                found.append(arrow)
    for path in sorted(p for p in (src / _TOP).iterdir() if p.is_dir()):
        if (path / "__init__.py").exists():
            _rank(path.name, str(path))
    return found


# --- faces: another package is imported through its ``__init__`` only -----------------------

# The kernel and the store: their face is their public modules (``__all__`` names modules).
TOOLKITS: tuple[str, ...] = ("core", "store")


def face_of(src: Path, package: str) -> frozenset[str]:
    """The names in ``__all__`` of ``muse.<package>`` (a literal list, as mypy requires)."""
    init = src / _TOP / Path(*package.split(".")) / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8")) if init.exists() else ast.Module([], [])
    for node in tree.body:
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and any(
                isinstance(t, ast.Name) and t.id == "__all__"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return frozenset(e.value for e in node.value.elts if isinstance(e, ast.Constant))
    return frozenset()


def _through_the_face(arrow: Arrow, face: frozenset[str], toolkit: bool) -> bool:
    package, *inner = arrow.target.split(".")[1:]
    if toolkit:  # muse.core.ids, or from muse.core import ids
        return bool(inner) and inner[0] in face or not inner and set(arrow.names) <= face
    return not inner and set(arrow.names) <= face


def subpackage_faces(src: Path) -> list[str]:
    """Subpackages with a face of their own (``__all__``), e.g. ``context.search``."""
    return sorted(
        ".".join(init.parent.relative_to(src / _TOP).parts)
        for init in (src / _TOP).glob("*/*/__init__.py")
        if face_of(src, ".".join(init.parent.relative_to(src / _TOP).parts))
    )


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def behind_the_face(src: Path) -> list[Arrow]:
    """Imports of another package that name one of its modules, or a name not in its ``__all__``;
    and, inside a package, imports of a subpackage with a face that pass it by."""
    faces: dict[str, frozenset[str]] = {}
    subfaces = [f"{_TOP}.{s}" for s in subpackage_faces(src)]
    found: list[Arrow] = []
    for path in sorted((src / _TOP).rglob("*.py")):
        for arrow in imports_of(path, src):
            source, target = layer_of(arrow.module), layer_of(arrow.target)
            sub = next((s for s in subfaces if _within(arrow.target, s)), None)
            if sub is not None and source == target and not _within(arrow.module, sub):
                face = faces.setdefault(sub, face_of(src, sub.removeprefix(f"{_TOP}.")))
                if arrow.target != sub or not set(arrow.names) <= face:
                    found.append(arrow)
                continue
            if source in (target, _TOP) or target == _TOP:
                continue
            face = faces.setdefault(target, face_of(src, target))
            if not _through_the_face(arrow, face, target in TOOLKITS):
                found.append(arrow)
    return found


def test_no_import_runs_up_the_layers() -> None:
    arrows = wrong_way(SRC)
    assert not arrows, "imports against the layers of docs/architecture.md §2:\n" + "\n".join(
        map(str, arrows)
    )


def test_another_package_is_imported_through_its_face() -> None:
    arrows = behind_the_face(SRC)
    assert not arrows, (
        "imports of another package's internals; import the name from the package itself "
        "(from muse.knowledge import load_cards) and add it to that package's __all__ if it is "
        "missing (docs/architecture.md §2):\n" + "\n".join(f"{a} {list(a.names)}" for a in arrows)
    )


# --- the checker itself, on planted trees -------------------------------------------------


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for rel, body in files.items():
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    for directory in {p.parent for p in src.rglob("*.py")}:
        (directory / "__init__.py").touch()
    return src


@pytest.mark.parametrize(
    ("body", "wrong"),
    [
        ("from muse.flow import accept\n", True),
        ("import muse.flow.accept\n", True),
        ("def f():\n    from muse.flow.accept import accept\n", True),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from muse.cli import main\n",
            True,
        ),
        ("import importlib\nimportlib.import_module('muse.flow.triggers')\n", True),
        ("from ..flow import accept\n", True),
        ("from muse import flow\n", True),
        ("from muse import core, store\n", False),
        ("from ..store import metadata\n", False),
        ("from muse.core.ids import new_id\nfrom muse.store.metadata import metadata\n", False),
        ("from muse.works.tables import works\nfrom .tables import cards\n", False),
        ("from . import tables\n", False),
    ],
)
def test_the_checker_finds_a_planted_wrong_way_import(tmp_path, body, wrong) -> None:
    src = _plant(
        tmp_path,
        {
            "muse/knowledge/planted.py": body,
            "muse/knowledge/tables.py": "",
            "muse/flow/accept.py": "",
            "muse/core/ids.py": "",
        },
    )
    found = wrong_way(src)
    assert bool(found) is wrong, found
    if wrong:
        assert found[0].module == "muse.knowledge.planted"


@pytest.mark.parametrize(
    ("body", "internal"),
    [
        ("from muse.knowledge import load_cards\n", False),
        ("from muse.knowledge import load_cards as cards_of\n", False),
        ("import muse.knowledge\n", False),
        ("from muse.knowledge.cards import load_cards\n", True),
        ("from muse.knowledge import cards\n", True),  # a module, not a name of the face
        ("from muse.knowledge import load_cards, secret\n", True),
        ("import muse.knowledge.cards\n", True),
        ("def f():\n    from muse.knowledge.cards import load_cards\n", True),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from muse.knowledge.cards import Card\n",
            True,
        ),
        ("from ..knowledge.cards import load_cards\n", True),
        ("import importlib\nimportlib.import_module('muse.knowledge.cards')\n", True),
        ("from muse.knowledge.tables import cards\n", True),  # another domain's table
        ("from muse.core.ids import new_id\nfrom muse.core import ids\n", False),
        ("from muse.core.secret import x\n", True),  # a kernel module not in its __all__
        ("from muse.store.tables import jobs\n", True),  # the store's tables are internal
        ("from .tables import runs\nfrom muse.flow.accept import accept\n", False),  # own
    ],
)
def test_the_checker_finds_a_planted_import_behind_a_face(tmp_path, body, internal) -> None:
    src = _plant(
        tmp_path,
        {
            "muse/knowledge/__init__.py": '__all__ = ["Card", "load_cards"]\n',
            "muse/knowledge/cards.py": "",
            "muse/knowledge/tables.py": "",
            "muse/core/__init__.py": '__all__ = ["ids"]\n',
            "muse/core/ids.py": "",
            "muse/store/tables.py": "",
            "muse/flow/planted.py": body,
            "muse/flow/tables.py": "",
            "muse/flow/accept.py": "",
        },
    )
    found = behind_the_face(src)
    assert bool(found) is internal, found
    assert all(a.module == "muse.flow.planted" for a in found)


@pytest.mark.parametrize(
    ("module", "body", "internal"),
    [
        ("muse/knowledge/cards.py", "from muse.knowledge.speed import work_rows\n", False),
        ("muse/knowledge/cards.py", "from muse.knowledge.speed.rows import work_rows\n", True),
        ("muse/knowledge/cards.py", "from .speed.rows import work_rows\n", True),
        ("muse/knowledge/cards.py", "from muse.knowledge.speed import rows\n", True),
        (
            "muse/knowledge/speed/book.py",
            "from muse.knowledge.speed.rows import work_rows\n",
            False,
        ),
        ("muse/knowledge/speed/book.py", "from .rows import work_rows\n", False),
        ("muse/flow/accept.py", "from muse.knowledge.speed import work_rows\n", True),
    ],
)
def test_the_checker_finds_a_planted_import_past_a_subpackage_face(
    tmp_path, module, body, internal
) -> None:
    files = {
        "muse/knowledge/__init__.py": '__all__ = ["load_cards"]\n',
        "muse/knowledge/speed/__init__.py": '__all__ = ["work_rows"]\n',
        "muse/knowledge/speed/rows.py": "",
        "muse/knowledge/speed/book.py": "",
        "muse/knowledge/cards.py": "",
        "muse/flow/accept.py": "",
    }
    src = _plant(tmp_path, {**files, module: body})
    found = behind_the_face(src)
    assert bool(found) is internal, found


def test_the_checker_refuses_a_package_without_a_layer(tmp_path) -> None:
    src = _plant(tmp_path, {"muse/newthing/x.py": "from muse.core import ids\n"})
    with pytest.raises(AssertionError, match="muse.newthing has no place in LAYERS"):
        wrong_way(src)


def test_the_real_tree_is_what_the_checker_reads() -> None:
    # guards against a check that passes because it reads nothing
    arrows = [a for p in (SRC / _TOP).rglob("*.py") for a in imports_of(p, SRC)]
    assert len(arrows) > 500
    assert any(layer_of(a.module) == "flow" and layer_of(a.target) == "context" for a in arrows)
