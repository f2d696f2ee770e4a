"""The public pattern cards Muse ships (``builtin_patterns.yaml``), installed on request."""

from __future__ import annotations

from importlib import resources

import yaml
from sqlalchemy import Connection

from muse.patterns.cards import PatternRecord, parse_pattern_files, save_pattern
from muse.patterns.contracts import PatternFile


def builtin_pattern_files() -> list[PatternFile]:
    text = resources.files("muse.patterns").joinpath("builtin_patterns.yaml").read_text("utf-8")
    return parse_pattern_files(yaml.safe_load(text)["patterns"], "builtin_patterns.yaml")


def install_builtin_patterns(conn: Connection) -> list[tuple[PatternRecord, bool]]:
    """Store the shipped cards as public cards; unchanged ones are left as they are."""
    return [save_pattern(conn, card) for card in builtin_pattern_files()]
