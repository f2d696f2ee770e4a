"""A marked book with cards whose debuts lie before and after the freeze point, a frozen
context for chapter 9 (as_of 8) and helpers to write candidates naming them."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from muse.context.contracts import WriterContext
from muse.context.output_contracts import (
    NewSettingDeclaration,
    WriterDraft,
    WriterOutput,
)
from muse.context.writer_context import freeze_context
from muse.context.writer_output import build_output
from muse.knowledge.card_import import import_cards_yaml
from muse.offline import writer as offline_writer
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.quality.findings import Finding
from muse.works import authorization
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.support.marked_book import CHAPTERS, chapter_text, fine_outline

NEXT = CHAPTERS + 1
AS_OF = CHAPTERS


def person(name: str, debut: str, aliases: str = "") -> str:
    return f"""
  - 类型: 人物
    名称: {name}
    别名: [{aliases}]
    字段: {{简介: 测试人物。, 身份: 弟子, 性格: 沉静}}
    演变历程:
      - {debut}"""


CARDS = "格式: muse-cards-v1\n卡片:" + "".join(
    [
        person(
            "林远",
            "{章: 1, 周期: 登场, 台阶: 出山, 出处: [{章: 1, 引文: 林远在第1章里行走山间}]}",
            "{名称: 林师兄, 起始章: 12}",  # a known card's alias that appears only later
        ),
        person(
            "苏晴", "{章: 6, 周期: 登场, 台阶: 相遇, 出处: [{章: 6, 引文: “走吧。”苏晴说道。}]}"
        ),
        person("王小明", "{章: 3, 周期: 登场, 台阶: 入门}"),
        person("赵铁柱", "{章: 2, 周期: 登场, 台阶: 入门}"),  # exists, never in the context
        person("韩立", "{章: 12, 周期: 登场, 台阶: 拜师}", "{名称: 韩老魔}"),
        person("小明", "{章: 15, 周期: 登场, 台阶: 下山}"),
        # misplaced: the debut's source is in chapter 5, after its own chapter 4 → unproven
        person("白无常", "{章: 4, 周期: 登场, 台阶: 现身, 出处: [{章: 5, 引文: 林远在第5章里}]}"),
    ]
)
# a draft (not confirmed) card from a later chapter: its name is just as much a future name
DRAFT = "格式: muse-cards-v1\n卡片:" + person("血煞老祖", "{章: 20, 周期: 登场, 台阶: 出关}")
FUTURE = ("韩立", "韩老魔", "小明", "林师兄", "白无常", "血煞老祖")


@dataclass(frozen=True)
class Named:
    work_id: int
    context: WriterContext
    snapshot_id: str
    draft: WriterDraft

    def candidate(self, *extra: str, declare: tuple[str, ...] = ()) -> WriterOutput:
        """The offline candidate with ``extra`` paragraphs appended and ``declare`` declared."""
        draft = self.draft.model_copy(
            update={
                "paragraphs": (*self.draft.paragraphs, *extra),
                "new_setting_declarations": tuple(
                    NewSettingDeclaration(name=n, kind="组织", description="本章新设定")
                    for n in declare
                ),
            }
        )
        output, unlocated = build_output(self.context, self.snapshot_id, draft, 1)
        assert not unlocated
        return output


@pytest.fixture
def named(engine) -> Named:
    outline = fine_outline(NEXT)
    outline["hard_constraints"]["required_entities"].append({"id": "E3", "name": "王小明"})
    with engine.begin() as conn:
        work_id = create_work(conn, "专名之书", default_chapter_chars=2500)
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        import_cards_yaml(conn, work_id, CARDS, confirm=True)
        import_cards_yaml(conn, work_id, DRAFT, filename="extracted.yaml")
        confirm_section(conn, save_fine_outline(conn, work_id, outline))
    return _frozen(engine, work_id)


def _frozen(engine, work_id: int) -> Named:
    with engine.begin() as conn:
        section_id, outline = load_confirmed(conn, work_id, NEXT)
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id="run_00000000000000000009",
            attempt=1,
            as_of=AS_OF,
            authorization=authorization.take_snapshot(conn, work_id, "production"),
        )
    draft = WriterDraft.model_validate(offline_writer.write_chapter(frozen.context.wire()))
    return Named(work_id, frozen.context, frozen.snapshot_id, draft)


def of_kind(findings: list[Finding], kind: str) -> dict[str, Finding]:
    return {f.quote or "": f for f in findings if f.kind == kind}
