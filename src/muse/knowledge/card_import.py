"""Importing a cards YAML file: every card becomes a draft; confirming is the author's act.

``confirm=True`` is for the author's own hand-written file: importing it with ``--confirm`` is
the author's decision, so the drafts it creates are confirmed in the same transaction — except
those that contradict a confirmed card, which wait in the conflict queue like any other.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Connection

from muse.knowledge.aliases import alias_collisions
from muse.knowledge.cards import load_cards
from muse.knowledge.contracts import DraftOutcome
from muse.knowledge.drafts import confirm_draft, submit_draft
from muse.knowledge.yaml_io import parse_cards_yaml


class ImportReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    filename: str
    work_id: int
    outcomes: list[DraftOutcome]
    warnings: list[str]

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def import_cards_yaml(
    conn: Connection,
    work_id: int,
    text: str,
    *,
    filename: str = "cards.yaml",
    confirm: bool = False,
) -> ImportReport:
    """Parse and verify the whole file first (nothing is written on any error), then submit."""
    specs, warnings = parse_cards_yaml(conn, work_id, text, filename=filename)
    confirmed = load_cards(conn, work_id)
    detail = {"file": filename}
    submitted = [
        submit_draft(conn, work_id, spec, origin="import", origin_detail=detail, among=confirmed)
        for spec in specs
    ]
    # one pool of confirmed cards for the whole file, kept current by confirm_draft (linear)
    outcomes = [
        confirm_draft(conn, o.draft_id, among=confirmed)
        if confirm and o.draft_id and o.status in ("new", "update") and not o.conflicts
        else o
        for o in submitted
    ]
    for outcome in submitted:
        warnings += outcome.warnings
    # New cards still waiting as drafts are checked against the confirmed ones too.
    waiting = [spec for spec, o in zip(specs, outcomes, strict=True) if o.status == "new"]
    warnings += [c.message() for c in alias_collisions(conn, work_id, extra=waiting)]
    return ImportReport(
        filename=filename,
        work_id=work_id,
        outcomes=outcomes,
        warnings=list(dict.fromkeys(warnings)),
    )
