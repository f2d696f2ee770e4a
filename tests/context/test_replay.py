"""Deterministic replay: no model, every read again through the as-of view, byte-identical."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event

from muse.agents.ledger import tool_read_log
from muse.context.as_of import AsOfView
from muse.context.explore.contracts import ExplorationRead
from muse.context.explore.replaying import replay, replay_bytes
from muse.core.canonical import sha256_hex
from muse.core.errors import ContractViolation
from muse.store.engine import reading
from muse.works.catalog import get_chapter_text
from tests.support.marked_book import marker

from .two_phase import explored, replayed, with_cards

ROOT = Path(__file__).resolve().parents[2]
REPLAY_SCRIPT = """
import sys
from muse.context.explore.contracts import ExplorationManifest
from muse.context.explore.replaying import replay, replay_bytes
from muse.store.engine import make_engine, reading
engine = make_engine(sys.argv[1])
manifest = ExplorationManifest.model_validate_json(open(sys.argv[2], encoding="utf-8").read())
with reading(engine) as conn:
    sys.stdout.buffer.write(replay_bytes(replay(conn, manifest)))
"""


def test_same_manifest_same_state_gives_the_same_bytes_in_two_processes(
    engine, db_url, marked_book, tmp_path
):
    with_cards(engine, marked_book)
    manifest = explored(engine, marked_book, 9)
    first = replay_bytes(replayed(engine, manifest))
    assert first == replay_bytes(replayed(engine, manifest))
    path = tmp_path / "manifest.json"
    path.write_text(manifest.model_dump_json(by_alias=True), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", REPLAY_SCRIPT, db_url, str(path)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    assert out.stdout == first


def test_each_material_carries_its_read_content_and_verifiable_pointers(engine, marked_book):
    with_cards(engine, marked_book)
    manifest = explored(engine, marked_book, 9)
    reads = replayed(engine, manifest)
    assert [(r.read_id, r.tool, r.args, r.why) for r in reads] == [
        (r.read_id, r.tool, r.args, r.why) for r in manifest.reads
    ]
    with engine.connect() as conn:
        texts = {n: get_chapter_text(conn, marked_book, n).text for n in range(1, 9)}
    searched = [r for r in reads if r.tool == "search_prose" and r.status == "ok"]
    assert searched
    for read in searched:
        for pointer, hit in zip(read.sources, read.content, strict=True):
            assert texts[pointer.chapter][pointer.start : pointer.end] == hit["snippet"]
            assert pointer.sha256 == sha256_hex(hit["snippet"]) and pointer.chapter <= 8
    chapter = next(r for r in reads if r.tool == "read_chapter")
    (pointer,) = chapter.sources
    assert chapter.content["text"] == texts[pointer.chapter]
    assert pointer.sha256 == sha256_hex(texts[pointer.chapter]) and pointer.version == "r1"
    assert all(r.tokens > 0 for r in reads if r.status == "ok")
    card = next(r for r in reads if r.tool == "get_card" and r.args == {"name": "林远"})
    assert [m["chapter"] for m in card.content["milestones"]] == [1, 2, 7]
    assert card.content_sha256 and card.sources[0].kind == "card"


def test_replay_with_an_engine_writes_the_ledger_without_a_call_id(engine, marked_book):
    manifest = explored(engine, marked_book, 9)
    future = ExplorationRead(
        read_id="x99", origin="explore", tool="read_chapter", args={"number": 9}, why="偷看"
    )
    manifest = manifest.model_copy(update={"reads": (*manifest.reads, future)})
    before = len(tool_read_log(engine, "run_replay"))
    begun: list[object] = []

    def on_begin(conn: object) -> None:
        begun.append(conn)

    event.listen(engine, "begin", on_begin)
    try:
        with reading(engine) as conn:
            reads = replay(conn, manifest, engine=engine, run_id="run_replay")
    finally:
        event.remove(engine, "begin", on_begin)
    log = tool_read_log(engine, "run_replay")[before:]
    assert [(r.tool, r.arguments) for r in log] == [(r.tool, r.args) for r in reads]
    assert all(r.call_id is None for r in log)
    # The rows a read-by-read ledger writes: its status, and the result's hash when it is ok.
    assert [r.status for r in log] == [
        {"ok": "ok", "empty": "ok", "refused": "refused"}[r.status] for r in reads
    ]
    assert [r.result_sha256 for r in log] == [
        r.content_sha256 if r.status in ("ok", "empty") else None for r in reads
    ]
    assert log[-1].status == "refused" and log[-1].error
    assert len(begun) == 2  # the read connection and one ledger transaction for all the reads


def test_a_forged_future_read_is_refused_at_replay_and_a_foreign_view_is_an_error(
    engine, marked_book
):
    manifest = explored(engine, marked_book, 5)  # as_of 4
    forged = manifest.model_copy(
        update={
            "reads": (
                ExplorationRead(
                    read_id="x99",
                    origin="explore",
                    tool="read_chapter",
                    args={"number": 6},
                    why="偷看",
                ),
            )
        }
    )
    (read,) = replayed(engine, forged)
    assert read.status == "refused" and read.content is None
    assert marker(6) not in replay_bytes([read]).decode()
    with reading(engine) as conn, pytest.raises(ContractViolation):
        replay(AsOfView(conn, marked_book, 6), manifest)
