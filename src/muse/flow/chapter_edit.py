"""The author's own changes to canonical text, outside the pipeline: edit and revert.

This lives in flow, not works, because one edit reaches three domains in one transaction — the
prose (works), the search index (context) and the source references (knowledge); the revision
history is the works domain's own (``muse.works.history``).

Spec 001 §2: "用户也可以直接在库内编辑正式正文". Such an edit is a content change made by the
author in person, so it needs no candidate and no preflight; what it must not do is leave
anything derived from the old text posing as current. One transaction therefore holds:

1. the new prose revision, by compare-and-set on the revision the author based the edit on
   (a stale ``expected_revision`` raises :class:`RevisionConflict`; nothing is written);
2. the chapter's search-index chunks, re-cut from the new text (the index never serves the
   old text as current);
3. every source reference into the chapter re-checked: a span that no longer hashes the same is
   marked stale with its reason, one whose text is back is restored (knowledge/source_refs.py);
4. a re-extraction job (``extract_chapter``, the payload the accept flow uses, ``runId`` null).

The setting ledger's consumption matrix is computed from canonical text whenever it is read
(knowledge/setting_gates.py), so there is nothing of it to refresh. A shadow candidate of a
later chapter whose context read this one is caught by accept preflight (``source_stale``):
its context snapshot recorded the revision it read.

A revert writes a *new* revision holding an earlier revision's text: history is never rewritten.
Fault-injection points (:data:`FAULT_POINTS`) let crash tests kill the commit at each step.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine

from muse.context import built_version, index_chapter
from muse.core.errors import InvalidInput
from muse.core.faults import fault_point
from muse.core.text import normalize_text
from muse.knowledge import revalidate_source_refs
from muse.store.jobs import enqueue
from muse.works import get_chapter_text, get_revision_text, write_revision

EXTRACT_JOB = "extract_chapter"  # the kind the accept flow queues; the worker runs both alike

FAULT_POINTS = (
    "edit.after_prose",
    "edit.after_index",
    "edit.after_refs",
    "edit.after_job",
    "edit.after_commit",
)


@dataclass(frozen=True)
class StaleRefNote:
    """A card or fact reference the change made stale, for the author to look at."""

    owner_kind: str
    owner_id: str
    target: str
    start: int
    end: int
    reason: str


@dataclass(frozen=True)
class EditOutcome:
    work_id: int
    chapter: int
    origin: str  # edit | revert
    previous_revision: int
    revision: int
    content_sha256: str
    han_count: int
    reverted_to: int | None  # the revision whose text a revert restored; None for an edit
    index_chunks: int | None  # chunks now indexed for the chapter; None: the work has no index
    refs_checked: int
    refs_restored: int
    refs_reanchored: int
    job_id: str
    stale_refs: list[StaleRefNote] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def edit_chapter(
    engine: Engine,
    work_id: int,
    number: int,
    text: str,
    *,
    expected_revision: int | None = None,
    actor: str = "author",
    source: str | None = None,
) -> EditOutcome:
    """Make the author's ``text`` the canonical text of chapter ``number`` (revision + 1).

    ``expected_revision`` is the revision the author edited; ``None`` means the current one, read
    in the same transaction. ``source`` names where the text came from (a file), for the record.
    """
    attribution: dict[str, Any] = {"kind": "author_edit", "actor": actor}
    if source:
        attribution["source"] = source
    with engine.begin() as conn:
        outcome = _change(conn, work_id, number, text, expected_revision, "edit", attribution)
    fault_point("edit.after_commit")
    return outcome


def revert_chapter(
    engine: Engine,
    work_id: int,
    number: int,
    *,
    to_revision: int,
    expected_revision: int | None = None,
    actor: str = "author",
) -> EditOutcome:
    """Write a new revision of chapter ``number`` whose text is that of ``to_revision``."""
    attribution = {"kind": "author_revert", "actor": actor, "revertedTo": to_revision}
    with engine.begin() as conn:
        old = get_revision_text(conn, work_id, number, to_revision)
        return _change(
            conn, work_id, number, old.text, expected_revision, "revert", attribution, to_revision
        )


def _change(
    conn: Connection,
    work_id: int,
    number: int,
    text: str,
    expected_revision: int | None,
    origin: str,
    attribution: dict[str, Any],
    reverted_to: int | None = None,
) -> EditOutcome:
    current = get_chapter_text(conn, work_id, number)
    based_on = current.revision if expected_revision is None else expected_revision
    if based_on == current.revision and normalize_text(text) == current.text:
        raise InvalidInput(
            f"第 {number} 章的正文与当前修订版 {current.revision} 完全相同，未写入新修订版。"
        )
    revision = write_revision(
        conn,
        work_id,
        number,
        text,
        expected_revision=based_on,
        origin=origin,
        attribution={**attribution, "basedOnRevision": based_on},
    )
    fault_point("edit.after_prose")
    chunks = _reindex(conn, work_id, number)
    fault_point("edit.after_index")
    report = revalidate_source_refs(conn, work_id, chapters=[number])
    fault_point("edit.after_refs")
    job_id = enqueue_extraction(conn, work_id, number, revision)
    fault_point("edit.after_job")
    new = get_chapter_text(conn, work_id, number)
    return EditOutcome(
        work_id=work_id,
        chapter=number,
        origin=origin,
        previous_revision=based_on,
        revision=revision,
        content_sha256=new.content_sha256,
        han_count=new.han_count,
        reverted_to=reverted_to,
        index_chunks=chunks,
        refs_checked=report.checked,
        refs_restored=report.restored,
        refs_reanchored=report.reanchored,
        job_id=job_id,
        stale_refs=[
            StaleRefNote(s.owner_kind, s.owner_id, s.target, s.start, s.end, s.reason)
            for s in report.newly_stale
        ],
    )


def _reindex(conn: Connection, work_id: int, number: int) -> int | None:
    """Re-cut the chapter's index chunks. A work that has no index yet gets none here: there is
    no old text to serve, and ``muse index rebuild`` builds the whole work at once."""
    if built_version(conn, work_id) is None:
        return None
    return index_chapter(conn, work_id, number)


def enqueue_extraction(conn: Connection, work_id: int, number: int, revision: int) -> str:
    """Queue post-chapter extraction of ``revision`` in the caller's transaction (one per
    revision: the same payload and de-duplication key as an accepted chapter)."""
    return enqueue(
        conn,
        EXTRACT_JOB,
        {"workId": work_id, "chapter": number, "revision": revision, "runId": None},
        work_id=work_id,
        dedupe_key=f"extract:{work_id}:{number}:{revision}",
    )
