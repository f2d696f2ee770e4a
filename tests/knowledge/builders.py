"""Pure card builders for the state-as-of tests (no database)."""

from __future__ import annotations

import itertools

from muse.core.canonical import sha256_hex
from muse.knowledge.contracts import Card, CardSpec, SourceRef

_ids = itertools.count(1)


def ref(chapter: int, *, stale: bool = False, quote: str = "原文") -> SourceRef:
    return SourceRef(
        chapter=chapter,
        start=0,
        end=len(quote),
        sha256=sha256_hex(quote),
        revision=1,
        quote=quote,
        stale=stale,
        stale_reason="原文已修改" if stale else None,
    )


def card(name: str = "孙悟空", type: str = "character", **parts) -> Card:
    fields = parts.pop(
        "fields",
        {
            "summary": {"value": "石猴"},
            "identity": {"value": "美猴王"},
            "personality": {"value": "桀骜"},
        },
    )
    parts["aliases"] = [{"name": a} if isinstance(a, str) else a for a in parts.get("aliases", [])]
    content = CardSpec.model_validate({"type": type, "name": name, "fields": fields, **parts})
    return Card(
        **content.model_dump(),
        id=f"card_{next(_ids):020x}",
        work_id=1,
        status="confirmed",
        revision=1,
        types_version="card-types-v1",
        spec_sha256="0" * 64,
    )


def debut(chapter: int | None, **extra) -> dict:
    return {"chapter": chapter, "cycle": "登场", "step": extra.pop("step", "登场"), **extra}
