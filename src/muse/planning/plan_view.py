"""What the gates check against: the work's confirmed plan, read once.

Planning mode (the stage-order rule): a work is *in planning* as soon as it has a stage-0
section (定盘) that was not discarded. From then on the five stages are a strict chain: a stage
can only be confirmed once every stage before it is confirmed, and a fine outline feeds
generation only while stages 0–3 are confirmed and it does not contradict them. A work without
one (imported for continuation, 拆书) runs in *free mode*: its fine outlines are confirmed and
fed to the writer as before, their own checks are reported as warnings, and stages 1–3 cannot be
confirmed (each needs the one before it, all the way down to 定盘).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Connection

from muse.core.length_target import MIN_VALID_HAN, SAMPLE_SIZE
from muse.planning.contracts import FineOutline
from muse.planning.sections import Section, list_sections, planning_started
from muse.planning.setting_link import SettingState, setting_state
from muse.planning.stage_contracts import Assembly, SettingSignoff, WorkFoundation, WorkOutline
from muse.planning.stages import STAGES
from muse.works import chapter_lengths, get_work_row, recent_chapter_lengths

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Confirmed:
    section: Section
    model: BaseModel


@dataclass
class PlanView:
    conn: Connection
    work_id: int
    planning: bool
    confirmed: dict[int, Confirmed]  # stages 0–3
    fine_outlines: dict[int, Confirmed] = field(default_factory=dict)
    work_default_chars: int = 3000

    @cached_property
    def chapter_lengths(self) -> list[tuple[int, int]]:
        """(number, Han count) of every chapter in number order, read when first asked for."""
        return chapter_lengths(self.conn, self.work_id)

    def lengths_before(self, chapter: int) -> list[tuple[int, int]]:
        """(number, Han count) of chapters before ``chapter`` enough for the length rule: the
        latest ``SAMPLE_SIZE`` with ``MIN_VALID_HAN`` Han characters or more, the only ones it
        samples (all chapters before it when the whole list was read anyway). A fine outline's
        gate then reads 20 rows, not a 2,000-chapter book's every row."""
        if "chapter_lengths" in self.__dict__:
            return [(n, h) for n, h in self.chapter_lengths if n < chapter]
        return recent_chapter_lengths(
            self.conn, self.work_id, upto=chapter - 1, min_han=MIN_VALID_HAN, limit=SAMPLE_SIZE
        )

    @property
    def mode(self) -> str:
        return "planning" if self.planning else "free"

    @property
    def latest_chapter(self) -> int:
        return max((n for n, _ in self.chapter_lengths), default=0)

    def model(self, stage: int) -> BaseModel | None:
        found = self.confirmed.get(stage)
        return found.model if found else None

    def _stage(self, stage: int, kind: type[M]) -> M | None:
        found = self.model(stage)
        assert found is None or isinstance(found, kind)  # stage n holds stage n's contract
        return found

    @property
    def foundation(self) -> WorkFoundation | None:
        return self._stage(0, WorkFoundation)

    @property
    def outline(self) -> WorkOutline | None:
        return self._stage(1, WorkOutline)

    @property
    def signoff(self) -> SettingSignoff | None:
        return self._stage(2, SettingSignoff)

    @property
    def assembly(self) -> Assembly | None:
        return self._stage(3, Assembly)

    @cached_property
    def setting(self) -> SettingState:
        return setting_state(self.conn, self.work_id)

    def outlines_before(self, chapter: int) -> list[FineOutline]:
        return [c.model for n, c in sorted(self.fine_outlines.items()) if n < chapter]  # type: ignore[misc]

    def basis(self, stage: int) -> list[dict[str, Any]]:
        """The confirmed upstream of ``stage``, as stored with its confirmation."""
        return [
            {"stage": s, "id": c.section.id, "sha256": c.section.payload_sha256}
            for s, c in sorted(self.confirmed.items())
            if s < stage
        ]


def load_plan_view(conn: Connection, work_id: int) -> PlanView:
    confirmed: dict[int, Confirmed] = {}
    outlines: dict[int, Confirmed] = {}
    for section in list_sections(conn, work_id, states=("confirmed",)):
        if section.stage is None:
            continue
        model = STAGES[section.stage].contract.model_validate(section.payload)
        if section.stage == 4:
            outlines[section.target_chapter] = Confirmed(section, model)  # type: ignore[index]
        else:
            confirmed[section.stage] = Confirmed(section, model)
    return PlanView(
        conn=conn,
        work_id=work_id,
        planning=planning_started(conn, work_id),
        confirmed=confirmed,
        fine_outlines=outlines,
        work_default_chars=get_work_row(conn, work_id)["default_chapter_chars"],
    )
