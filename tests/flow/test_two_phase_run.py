"""A production run end to end: explore → replay → freeze → tool-less generation; evidence
requests answered inside the run; a future name leaking into the candidate blocks it."""

from __future__ import annotations

from sqlalchemy import select

from muse.agents.tables import model_calls, tool_reads
from muse.context.contracts import WriterContext
from muse.context.round_order import writer_input
from muse.context.tables import context_snapshots
from muse.flow.production import write_chapter
from muse.flow.tables import candidates, run_events
from muse.knowledge.card_import import import_cards_yaml
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from tests.flow.conftest import NEXT, fine_outline


def _calls(engine, run_id):
    with engine.connect() as conn:
        return (
            conn.execute(
                select(model_calls.c.task, model_calls.c.task_input, model_calls.c.request_params)
                .where(model_calls.c.run_id == run_id, model_calls.c.role == "writer")
                .order_by(model_calls.c.started_at)
            )
            .mappings()
            .all()
        )


def _snapshot(engine, snapshot_id) -> WriterContext:
    with engine.connect() as conn:
        payload = conn.execute(
            select(context_snapshots.c.payload).where(context_snapshots.c.id == snapshot_id)
        ).scalar_one()
    return WriterContext.model_validate(payload)


def _candidate(engine, candidate_id):
    with engine.connect() as conn:
        return (
            conn.execute(select(candidates).where(candidates.c.id == candidate_id)).mappings().one()
        )


def test_explore_with_read_only_tools_then_generate_from_the_frozen_context_only(engine, book):
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    assert summary.state == "shadow_ready", summary.reason
    explore, generate = _calls(engine, summary.run_id)
    assert explore["task"] == "explore" and generate["task"] == "generate"
    offered = set(explore["request_params"]["toolsOffered"])
    assert offered and offered <= {
        "read_chapter",
        "search_prose",
        "get_card",
        "get_outline",
        "get_style",
        "get_patterns",
    }
    assert generate["request_params"]["toolsOffered"] == []  # no tool schema at generation
    context = _snapshot(engine, summary.context_snapshot_id)
    # The manifest (plan reads first) and its replay are frozen into the context …
    assert context.exploration is not None and context.exploration.reads[0].read_id.startswith("p")
    assert [m.read_id for m in context.replayed_materials] == [
        r.read_id for r in context.exploration.reads
    ]
    # … and the generation input is exactly that context, in the round's fixed order.
    assert generate["task_input"] == writer_input(context)
    with engine.connect() as conn:
        reads = conn.execute(
            select(tool_reads.c.tool).where(tool_reads.c.run_id == summary.run_id)
        ).all()
    assert reads, "the explore phase's and the replay's reads are ledgered against the run"


def test_evidence_requests_are_answered_and_the_writer_generates_again(engine, book):
    outline = fine_outline(NEXT + 1)
    with engine.begin() as conn:
        outline["target_chapter"] = NEXT
        outline["title"] = f"第{NEXT}章【补证：苏晴；玉佩】"
        confirm_section(conn, save_fine_outline(conn, book, outline))
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    generate = [c for c in _calls(engine, summary.run_id) if c["task"] == "generate"]
    assert len(generate) == 2  # asked once, answered, generated again; never asked twice
    answered = summary.evidence_requests["answered"]
    assert {a["query"] for a in answered} <= {"苏晴", "玉佩"} and answered
    with engine.connect() as conn:
        events = conn.execute(
            select(run_events.c.detail).where(
                run_events.c.run_id == summary.run_id, run_events.c.node == "evidence_requests"
            )
        ).all()
    assert len(events) == 1 and events[0].detail["requestsUsed"] <= 3
    # The candidate was written from the extended context, which the second call received.
    cand = _candidate(engine, summary.candidate_id)
    extended = _snapshot(engine, cand["context_snapshot_id"])
    assert generate[1]["task_input"] == writer_input(extended)
    assert generate[0]["task_input"] != generate[1]["task_input"]


FUTURE = """格式: muse-cards-v1
卡片:
  - 类型: 人物
    名称: 血煞老祖
    别名: [老祖]
    字段: {简介: 后期反派。, 身份: 魔道宗主, 性格: 阴狠}
    演变历程:
      - {章: 30, 周期: 登场, 台阶: 出关}
"""


def test_a_future_name_in_the_candidate_blocks_it(engine, book, scripted_writer):
    with engine.begin() as conn:
        import_cards_yaml(conn, book, FUTURE, confirm=True)

    def leak(draft):
        paragraphs = list(draft["paragraphs"])
        paragraphs[0] += "远处，血煞老祖冷冷一笑。"
        return {**draft, "paragraphs": paragraphs}

    scripted_writer(leak)
    summary = write_chapter(
        engine, book, NEXT, provider="offline", model="offline-1", max_rewrites=0
    )
    assert summary.state == "blocked_user_action"
    leaks = [f for f in summary.findings if f["kind"] == "future_leak"]
    assert leaks and leaks[0]["severity"] == "high" and "血煞老祖" in leaks[0]["message"]
    # The writer never saw the name: it is in no context this run froze.
    context = _snapshot(engine, summary.context_snapshot_id)
    assert "血煞老祖" not in context.model_dump_json()
