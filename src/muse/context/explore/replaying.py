"""Deterministic replay of an exploration manifest (spec 001 §5: "确定性回放按清单重放只读工具").

No model takes part. Every read of the manifest runs again through the same read-only tools over
an ``AsOfView`` at the manifest's freeze point, in the manifest's order, and becomes a
``ReplayedRead`` carrying its tool, arguments and reason, the content, the source pointers
(chapter, revision, code point offsets, sha256) and a token estimate. The same manifest over the
same canonical state gives byte-identical results (``replay_bytes``) in any process.

With an ``engine`` the replay writes each read to the tool-read ledger (``call_id`` NULL: a read
no model asked for), as ``agents.tools`` documents, all in one transaction at its end. Run it on a read connection
(``store.engine.reading``) before the freeze's write transaction: on SQLite the ledger writes
need the write lock.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from sqlalchemy import Connection, Engine

from muse.agents import TOOL_SPECS, AsOfViolation, LedgerBatch, ToolNotAllowed, ToolSet
from muse.context.as_of import AsOfView
from muse.context.card_hits import content_identity
from muse.context.explore.contracts import (
    ExplorationManifest,
    ExplorationRead,
    ReplayedRead,
    SourcePointer,
)
from muse.context.explore.tool_reader import AsOfToolReader
from muse.context.tokens import estimate_tokens
from muse.core.canonical import canonical_json, hash_value, sha256_hex
from muse.core.errors import ContractViolation, InvalidInput
from muse.planning import FineOutline


def replay(
    source: Connection | AsOfView,
    manifest: ExplorationManifest,
    *,
    engine: Engine | None = None,
    run_id: str | None = None,
    confirmed_outline: FineOutline | None = None,
) -> list[ReplayedRead]:
    """Execute every read of ``manifest`` again through the as-of view, without a model.

    ``confirmed_outline``: the run's confirmed outline of the target chapter, already loaded
    (``get_outline`` answers with it; see :class:`AsOfToolReader`)."""
    view = (
        source
        if isinstance(source, AsOfView)
        else AsOfView(source, manifest.work_id, manifest.as_of)
    )
    if (view.work_id, view.as_of) != (manifest.work_id, manifest.as_of):
        raise ContractViolation(
            f"回放视图（作品 {view.work_id}，冻结点第 {view.as_of} 章）与探索清单"
            f"（作品 {manifest.work_id}，冻结点第 {manifest.as_of} 章）不一致。"
        )
    reader = AsOfToolReader(view, manifest.target_chapter, confirmed_outline)
    tools = ToolSet(reader)
    batch = LedgerBatch(engine) if engine is not None else None
    try:
        return [_replay_one(tools, reader, read, batch, run_id) for read in manifest.reads]
    finally:
        if batch is not None:  # one transaction for the replay's ledger rows, even on failure
            batch.flush()


def replay_bytes(reads: list[ReplayedRead]) -> bytes:
    """The canonical bytes of a replay: what "byte-identical" is measured on."""
    return canonical_json([r.wire() for r in reads])


def _replay_one(
    tools: ToolSet,
    reader: AsOfToolReader,
    read: ExplorationRead,
    batch: LedgerBatch | None,
    run_id: str | None,
) -> ReplayedRead:
    base: dict[str, Any] = {
        "read_id": read.read_id,
        "origin": read.origin,
        "tool": read.tool,
        "args": read.args,
        "why": read.why,
    }
    try:
        if batch is not None:
            content = tools.call(
                read.tool, read.args, engine=batch.engine, run_id=run_id, batch=batch
            )
        else:
            spec = TOOL_SPECS[read.tool]
            content = spec.run(reader, spec.arguments.model_validate(read.args))
    except (AsOfViolation, ToolNotAllowed) as err:
        return ReplayedRead(**base, status="refused", error=err.message)
    except InvalidInput as err:
        return ReplayedRead(**base, status="error", error=err.message)
    if content is None or content == []:
        return ReplayedRead(
            **base, status="empty", content=content, content_sha256=hash_value(content)
        )
    return ReplayedRead(
        **base,
        status="ok",
        content=content,
        content_sha256=hash_value(content),
        sources=tuple(_pointers(reader, read.tool, content)),
        tokens=estimate_tokens(material_text(read.tool, content)),
    )


def material_text(tool: str, content: Any) -> str:
    """The text a reader of this material spends tokens on."""
    if tool == "read_chapter":
        return str(content["text"])
    if tool == "search_prose":
        return "".join(str(hit["snippet"]) for hit in content)
    return json.dumps(content, ensure_ascii=False, sort_keys=True)


def _pointers(reader: AsOfToolReader, tool: str, content: Any) -> list[SourcePointer]:
    work = reader.view.work_id
    if tool == "read_chapter":
        return [
            SourcePointer(
                kind="chapter",
                source_id=f"chapter:{work}:{content['number']}",
                version=f"r{content['revision']}",
                chapter=content["number"],
                start=0,
                end=len(content["text"]),
                sha256=sha256_hex(content["text"]),
            )
        ]
    if tool == "search_prose":
        return [
            SourcePointer(
                kind="prose_chunk",
                source_id=f"chapter:{work}:{hit['chapter']}",
                version=f"r{hit['revision']}",
                chapter=hit["chapter"],
                start=hit["start"],
                end=hit["end"],
                sha256=sha256_hex(hit["snippet"]),
            )
            for hit in content
        ]
    if tool == "get_card":
        return [
            SourcePointer(
                kind="card",
                source_id=f"card:{work}:{content['type']}:{content['name']}",
                version=f"asof:{reader.as_of}",
                sha256=content_identity(content),
            )
        ]
    if tool == "get_patterns":
        return [
            SourcePointer(
                kind="pattern",
                source_id=f"pattern:{p['key']}",
                version=str(p["version"]),
                sha256=p["contentSha256"],
            )
            for p in content
        ]
    kind: Literal["outline", "style"] = "outline" if tool == "get_outline" else "style"
    return [
        SourcePointer(
            kind=kind, source_id=f"{kind}:{work}", version="confirmed", sha256=hash_value(content)
        )
    ]
