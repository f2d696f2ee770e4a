"""The typed row of a work (table ``works``), as ``get_work_row`` hands it to other packages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from muse.store.rows import FromRow


@dataclass(frozen=True, slots=True)
class WorkRow(FromRow):
    id: int
    title: str
    source_kind: str  # own | public_domain | licensed
    allowed_purposes: list[str]  # production | evaluation
    source_status: str  # active | suspended | withdrawn
    source_version: str
    source_note: str | None
    default_chapter_chars: int
    front_matter: str | None  # text before the first chapter of an imported book
    created_at: datetime
    updated_at: datetime
