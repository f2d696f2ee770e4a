"""Plan files in and out: what ``muse plan export / edit / import`` read and write.

Export starts from a given section, else the stage's newest shadow, else its confirmed section,
else an empty template. Import validates a file (errors carry file and line) and saves it as a
new shadow; it never changes an existing section.

The workbench edits a stage's YAML in the page (:func:`save_edited_text`): the same validation
and messages as a file (the editor is named instead of a path), plus a stale check — the page
carries the :func:`stage_revision` it was opened on; when the stage's sections changed since (a
new draft, a confirmation, a discard) nothing is saved and the author's text stays in the page.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from muse.core.errors import InvalidInput, StaleTransition
from muse.planning.saving import Saved, save_stage_section
from muse.planning.sections import get_section, list_sections
from muse.planning.stages import StageDef, stage_of
from muse.planning.validation import PayloadInvalid
from muse.planning.yaml_io import (
    dump_plan,
    guess_stage,
    load_plan_file,
    locate,
    parse_plan_text,
    template,
)


def editable_payload(
    conn: Connection,
    work_id: int,
    stage: StageDef,
    *,
    chapter: int | None = None,
    section_id: str | None = None,
) -> tuple[dict[str, Any], str]:
    """(payload, where it came from) for the author to edit."""
    if section_id is not None:
        section = get_section(conn, section_id)
        if section.work_id != work_id or section.stage != stage.number:
            raise InvalidInput(f"规划条目 {section_id} 不属于本作品的{stage.label}。")
        return section.payload, f"{section.id}（{section.state}）"
    if stage.number == 4 and chapter is None:
        raise InvalidInput("编辑细纲要指定章号（--chapter N）。")
    sections = list_sections(conn, work_id, stage=stage.number, chapter=chapter)
    shadows = [s for s in sections if s.state == "shadow"]
    chosen = shadows[-1] if shadows else next((s for s in sections if s.state == "confirmed"), None)
    if chosen is not None:
        return chosen.payload, f"{chosen.id}（{chosen.state}）"
    blank = template(stage.contract)
    if stage.number == 4:
        blank["target_chapter"] = chapter
    return blank, "空白模板"


def export_text(
    conn: Connection,
    work_id: int,
    stage: int | str,
    *,
    chapter: int | None = None,
    section_id: str | None = None,
) -> str:
    st = stage_of(stage)
    payload, source = editable_payload(conn, work_id, st, chapter=chapter, section_id=section_id)
    return dump_plan(st, payload, source=source)


def import_file(
    conn: Connection,
    work_id: int,
    path: Path,
    *,
    stage: int | str | None = None,
    origin: str = "import",
) -> Saved:
    """Save a plan file as a shadow section; InvalidInput names file, line and field."""
    data, lines = load_plan_file(path)
    st = stage_of(stage) if stage is not None else guess_stage(data, path)
    try:
        return save_stage_section(
            conn, work_id, st.number, data, origin=origin, origin_detail={"file": path.name}
        )
    except PayloadInvalid as err:
        raise locate(err, lines, path) from None


EDITOR_NAME = "编辑框"
EVERY_STATE = ("shadow", "confirmed", "discarded", "superseded")


def stage_revision(
    conn: Connection, work_id: int, stage: int | str, *, chapter: int | None = None
) -> str:
    """A token of the stage's sections (one chapter's, for a fine outline): every id and state.
    It changes with any new draft, confirmation, discard or supersession of that stage."""
    st = stage_of(stage)
    chapter = chapter if st.number == 4 else None
    sections = list_sections(conn, work_id, stage=st.number, states=EVERY_STATE, chapter=chapter)
    listing = ";".join(sorted(f"{s.id}:{s.state}" for s in sections))
    return hashlib.sha256(f"{st.number}|{chapter}|{listing}".encode()).hexdigest()[:16]


def save_edited_text(
    conn: Connection,
    work_id: int,
    stage: int | str,
    text: str,
    *,
    chapter: int | None = None,
    expected_revision: str | None = None,
) -> Saved:
    """Save the YAML the author edited in the workbench as a new shadow of ``stage`` — the same
    checks and messages as ``muse plan edit`` — unless the stage moved on since the editor was
    opened (``expected_revision``, from :func:`stage_revision`): then StaleTransition, nothing
    saved."""
    st = stage_of(stage)
    if expected_revision is not None:
        now = stage_revision(conn, work_id, st.number, chapter=chapter)
        if now != expected_revision:
            what = f"{st.label}（第 {chapter} 章）" if st.number == 4 else st.label
            raise StaleTransition(
                f"{what}在你打开编辑框之后有了变化（新的草稿、确认或丢弃），这次修改没有保存。",
                hint="你的修改仍在编辑框里：请对照规划页上的最新版本，重新打开编辑后再提交。",
            )
    if not text.strip():
        raise InvalidInput(f"{EDITOR_NAME}:1: 内容必须是非空的键值表。")
    data, lines = parse_plan_text(text, EDITOR_NAME)
    try:
        return save_stage_section(
            conn, work_id, st.number, data, origin="edit", origin_detail={"file": EDITOR_NAME}
        )
    except PayloadInvalid as err:
        raise locate(err, lines, EDITOR_NAME) from None
