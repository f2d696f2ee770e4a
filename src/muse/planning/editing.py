"""Plan files in and out: what ``muse plan export / edit / import`` read and write.

Export starts from a given section, else the stage's newest shadow, else its confirmed section,
else an empty template. Import validates a file (errors carry file and line) and saves it as a
new shadow; it never changes an existing section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from muse.core.errors import InvalidInput
from muse.planning.saving import Saved, save_stage_section
from muse.planning.sections import get_section, list_sections
from muse.planning.stages import StageDef, stage_of
from muse.planning.validation import PayloadInvalid
from muse.planning.yaml_io import dump_plan, guess_stage, load_plan_file, locate, template


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
