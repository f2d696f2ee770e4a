"""Identifiers: a short prefix naming the kind of thing, then 20 hex characters of randomness.

The prefix makes an id readable in logs and CLI output (``run_…``, ``cand_…``); ids never carry
meaning beyond that and are never parsed.
"""

from __future__ import annotations

import re
import secrets

_ID = re.compile(r"[a-z]{2,8}_[0-9a-f]{20}")


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(10)}"


def is_id(value: str, prefix: str | None = None) -> bool:
    if not _ID.fullmatch(value):  # fullmatch: "$" alone lets a trailing "\n" through
        return False
    return prefix is None or value.startswith(prefix + "_")
