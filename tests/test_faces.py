"""Package faces (docs/architecture.md §2): each package's ``__init__`` lists its public names in
``__all__``; every name resolves, and importing the face alone imports none of the package's
modules (start-up time: a command pays only for the modules it uses).

A domain face maps module → names in ``_FACE`` and imports the same names under
``TYPE_CHECKING`` for the type checker; the three lists must agree. The kernel and the store
(``core``, ``store``) name their public modules instead (tests/test_layers.py ``TOOLKITS``).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_layers import LAYERS, SRC, TOOLKITS, face_of, subpackage_faces

PACKAGES = [p for p in LAYERS if (SRC / "muse" / p / "__init__.py").exists()]
SUBPACKAGES = subpackage_faces(SRC)  # context.search, knowledge.speed
FACED = [p for p in PACKAGES if p not in TOOLKITS] + SUBPACKAGES


def _init(package: str) -> Path:
    return SRC / "muse" / Path(*package.split(".")) / "__init__.py"


def _submodules(package: str) -> set[str]:
    root = _init(package).parent
    return {p.stem for p in root.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in root.iterdir() if (p / "__init__.py").exists()
    }


def _declared(package: str) -> tuple[dict[str, str], dict[str, str]]:
    """(name → module) from ``_FACE`` and from the ``TYPE_CHECKING`` imports of the face."""
    tree = ast.parse(_init(package).read_text(encoding="utf-8"))
    face: dict[str, str] = {}
    checked: dict[str, str] = {}
    prefix = f"muse.{package}."
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "_FACE":
            assert isinstance(node.value, ast.Dict)
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                assert isinstance(key, ast.Constant) and isinstance(value, ast.Tuple)
                face |= {e.value: key.value for e in value.elts if isinstance(e, ast.Constant)}
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                assert imp.module.startswith(prefix), imp.module
                checked |= {a.name: imp.module.removeprefix(prefix) for a in imp.names}
    return face, checked


def test_every_package_has_a_face() -> None:
    assert set(PACKAGES) == set(LAYERS)
    for package in PACKAGES:
        tree = ast.parse((SRC / "muse" / package / "__init__.py").read_text(encoding="utf-8"))
        assert any("__all__" in ast.unparse(n).split("=")[0] for n in tree.body), package


@pytest.mark.parametrize("package", FACED)
def test_the_face_lists_agree_and_every_name_resolves(package) -> None:
    names = face_of(SRC, package)
    face, checked = _declared(package)
    if face or checked:
        assert set(face) == names, "__all__ and _FACE differ"
        assert checked == face, "the TYPE_CHECKING imports and _FACE differ"
    module = importlib.import_module(f"muse.{package}")
    for name in sorted(names):
        value = getattr(module, name)  # raises if the name does not resolve
        if name in face:
            home = importlib.import_module(f"muse.{package}.{face[name]}")
            assert value is getattr(home, name)
    assert names <= set(dir(module))
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


@pytest.mark.parametrize("package", FACED)
def test_no_public_name_is_also_a_module(package) -> None:
    # once muse.flow.rebuild is imported, Python sets the attribute ``rebuild`` of muse.flow to
    # that module: a function of the same name in the face would be shadowed
    assert not face_of(SRC, package) & _submodules(package)


@pytest.mark.parametrize("package", TOOLKITS)
def test_the_toolkits_name_their_public_modules(package) -> None:
    names = face_of(SRC, package)
    assert names and names <= _submodules(package)
    for name in sorted(names):
        importlib.import_module(f"muse.{package}.{name}")


def test_the_subpackages_are_found() -> None:
    assert {"context.search", "knowledge.speed"} <= set(SUBPACKAGES)


def test_importing_a_face_imports_none_of_its_modules() -> None:
    # a fresh interpreter: this process has imported everything already
    faces = [f"muse.{p}" for p in PACKAGES + SUBPACKAGES]
    code = (
        "import sys\n"
        f"faces = {faces!r}\n"
        "for face in faces:\n"
        "    __import__(face)\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('muse.') and m.count('.') > 1)\n"
        "print('\\n'.join(m for m in loaded if m not in faces))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    ).stdout.split()
    # the one helper every face uses, and the compile cache the command's face installs
    assert out == ["muse.core.compile_cache", "muse.core.faces"]
