"""A book of short chapters is judged by its own length (issue 18; spec 000 §8.1, length-v2).

The modern sample (``tests/fixtures/prose/modern_webnovel.txt``, four chapters of 447–531 Han)
goes through the real path: its first three chapters canonical, the context frozen for the
fourth, the real fourth chapter checked by the mechanical gate. Under length-v1 its target was
the 2000 floor and the chapter (468 Han) fell below the acceptance band; two of its chapters were
not even "valid" for the median (rule 2's 500).
"""

from __future__ import annotations

import re
from pathlib import Path

from muse.context.output_contracts import WriterDraft
from muse.context.writer_context import freeze_context
from muse.context.writer_output import build_output
from muse.core.text import count_han
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.quality import mechanical
from muse.works import authorization
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

SAMPLE = Path(__file__).parents[1] / "fixtures" / "prose" / "modern_webnovel.txt"


def _chapters() -> list[list[str]]:
    parts = re.split(r"\n\n(?=第[一二三四]章　)", SAMPLE.read_text(encoding="utf-8"))
    return [[line for line in p.splitlines()[1:] if line.strip()] for p in parts]


def test_the_real_chapters_of_a_short_book_are_inside_its_band(engine) -> None:
    chapters = _chapters()
    with engine.begin() as conn:
        work_id = create_work(conn, "青州夜雨", default_chapter_chars=3000)
        for n, paragraphs in enumerate(chapters[:3], 1):
            add_chapter(conn, work_id, n, f"第{n}章", "\n".join(paragraphs))
        outline = {
            "target_chapter": 4,
            "title": "第4章",
            "hard_constraints": {
                "hard_events": [{"id": "H1", "text": "陆沉第一次去公司上班"}],
                "result_direction": {"id": "R1", "text": "陆沉留了下来"},
                "chapter_end_hook": {"id": "K1", "text": "铜钱又热了"},
                "foreshadowing_note": "本章不安排伏笔动作。",
                "required_entities": [{"id": "E1", "name": "陆沉"}],
            },
        }
        confirm_section(conn, save_fine_outline(conn, work_id, outline))
        section_id, fine = load_confirmed(conn, work_id, 4)
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=fine,
            outline_section_id=section_id,
            run_id="run_00000000000000000181",
            attempt=1,
            as_of=3,
            authorization=authorization.take_snapshot(conn, work_id, "production"),
            store=False,
        )
    length = frozen.context.output_contract
    assert length.length_target["source"] == "median"
    assert length.length_target["sampleChapters"] == [1, 2, 3]
    low, high = length.acceptance_band
    for paragraphs in chapters:  # every real chapter of the book, the fourth too
        assert low <= count_han("\n".join(paragraphs)) <= high
    output, unlocated = build_output(
        frozen.context, frozen.snapshot_id, WriterDraft(paragraphs=tuple(chapters[3])), 1
    )
    findings = mechanical.check(frozen.context, output, unlocated)
    assert [f for f in findings if f.kind == "length_band"] == []
