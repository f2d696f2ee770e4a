"""A package's face: its public names, each imported from its own module on first use (PEP 562).

A domain package's ``__init__`` lists its public names in ``__all__``, imports them under
``TYPE_CHECKING`` (so the type checker sees them) and maps each module to the names it gives::

    _FACE = {"cards": ("find_card", "load_cards"), "card_types": ("card_type",)}
    __getattr__, __dir__ = lazy_face(globals(), _FACE)

``from muse.knowledge import load_cards`` then imports ``muse.knowledge.cards`` and nothing else of
the package, so a command pays only for the modules it uses (``muse chapters --json`` must start
fast; ``cli/lazy.py`` imports command modules only on use). A name is looked up once and kept in
the package's namespace. No public name may also be the name of one of the package's modules:
once that module is imported, Python sets the package attribute to the module
(tests/test_faces.py). Other packages import only through the face (tests/test_layers.py,
docs/architecture.md §2).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_face(
    namespace: dict[str, Any], face: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package whose ``face`` maps module → names."""
    package = namespace["__name__"]
    home = {name: module for module, names in face.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *home})

    return __getattr__, __dir__
