"""Pattern cards (范式), their per-work bindings and the style profile (文风) — spec 001 §1A stage 3.

Public pattern cards belong to no work (``work_id`` NULL, the spec's "work 0"); a work may also
keep private ones. A work uses a pattern only through a binding, and a binding exists only once
the author confirmed the assembly (装配) that chose it: the context builder reads
:func:`muse.patterns.bindings.load_bound_patterns` and
:func:`muse.patterns.bindings.load_confirmed_style`, which never see anything unconfirmed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.patterns.bindings import (
        Binding,
        bind_assembly,
        list_bindings,
        list_style_profiles,
        load_bound_patterns,
        load_confirmed_style,
    )
    from muse.patterns.builtin import install_builtin_patterns
    from muse.patterns.cards import find_pattern, list_patterns, parse_pattern_files, save_pattern
    from muse.patterns.contracts import Strict, StyleProfile, doubt_reason, list_or_doubt

__all__ = [
    "Binding",
    "Strict",
    "StyleProfile",
    "bind_assembly",
    "doubt_reason",
    "find_pattern",
    "install_builtin_patterns",
    "list_or_doubt",
    "list_patterns",
    "load_bound_patterns",
    "load_confirmed_style",
    "parse_pattern_files",
    "save_pattern",
    "list_bindings",
    "list_style_profiles",
]

_FACE: dict[str, tuple[str, ...]] = {
    "bindings": (
        "Binding",
        "bind_assembly",
        "load_bound_patterns",
        "load_confirmed_style",
        "list_bindings",
        "list_style_profiles",
    ),
    "builtin": ("install_builtin_patterns",),
    "cards": ("find_pattern", "list_patterns", "parse_pattern_files", "save_pattern"),
    "contracts": ("Strict", "StyleProfile", "doubt_reason", "list_or_doubt"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
