"""Every page of the read-only board renders what is stored (001 §8.6), in Chinese."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from sqlalchemy import select, text

from muse.agents.tables import model_calls, tool_reads
from muse.flow.chapter_edit import edit_chapter
from muse.flow.tables import candidates
from muse.knowledge.cards import find_card
from tests.web.helpers import FLAGGED


@dataclass(frozen=True)
class PageCase:
    name: str
    url: str  # formatted with work, candidate, run, snapshot
    shows: tuple[str, ...]


PAGES = (
    PageCase(
        "overview",
        "/works/{work}",
        ("待你处理", "规划五阶段", "细纲", "写下一章", "<b>1</b>候选待审"),
    ),
    PageCase("chapters", "/works/{work}/chapters", ("心性修持大道生", "修订版")),
    PageCase(
        "chapter",
        "/works/{work}/chapters/1",
        ("修订历史", "导入", "引用本章的出处", "美猴王领一群猿猴"),
    ),
    PageCase("cards", "/works/{work}/cards", ("人物", "孙悟空", "三界")),
    PageCase("candidates", "/works/{work}/candidates", ("{candidate}", "已通过检测")),
    PageCase(
        "candidate",
        "/candidates/{candidate}",
        ("决策菜单", "检测报告", "断言账", "本轮输入摘要", "与正文一致"),
    ),
    PageCase(
        "context",
        "/contexts/{snapshot}",
        (
            "预算（tokens）",
            "连续原文",
            "读取的来源",
            "未纳入的来源",
            "证据覆盖",
            "篇幅目标",
            "目标章之前连续四章全文基线",
        ),
    ),
    PageCase(
        "run",
        "/runs/{run}",
        ("节点时间线", "模型调用", "工具读取账本", "补证请求", "offline-1", "writer"),
    ),
    PageCase("runs", "/works/{work}/runs", ("{run}", "候选待审")),
    PageCase("drafts", "/works/{work}/drafts", ("卡片草稿",)),
    PageCase("conflicts", "/works/{work}/conflicts", ("冲突队列",)),
    PageCase("facts", "/works/{work}/facts", ("事实增量", "事实台账")),
    PageCase("jobs", "/works/{work}/jobs", ("任务队列",)),
    PageCase("plan", "/works/{work}/plan", ("阶段 4 · 细纲", "规划条目", "confirmed")),
    PageCase("records", "/records", ("数据表", "candidates", "model_calls")),
    PageCase("table", "/records/candidates", ("{candidate}",)),
)


@pytest.fixture
def ids(engine, written) -> dict[str, str]:
    with engine.connect() as conn:
        snapshot = conn.execute(
            select(candidates.c.context_snapshot_id).where(candidates.c.id == written.candidate_id)
        ).scalar_one()
    return {
        "work": str(written.work_id),
        "candidate": written.candidate_id,
        "run": written.run_id,
        "snapshot": snapshot,
    }


@pytest.mark.parametrize("case", PAGES, ids=lambda c: c.name)
def test_every_page_renders_what_is_stored(client, ids, case):
    r = client.get(case.url.format(**ids))
    assert r.status_code == 200, r.text[:500]
    assert r.headers["content-type"].startswith("text/html")
    for expected in case.shows:
        assert expected.format(**ids) in r.text, f"{case.name}: {expected!r} missing"
    assert "Traceback" not in r.text


def test_the_candidate_highlights_its_finding_at_the_located_quote(client, written):
    html = client.get(f"/candidates/{written.candidate_id}").text
    marks = re.findall(
        r'<mark class="([^"]*finding-medium[^"]*)" title="([^"]*)"[^>]*>([^<]*)</mark>', html
    )
    assert [(m[2]) for m in marks] == [FLAGGED.strip("《》")]
    assert "unknown_entity" in marks[0][1]
    assert 'class="claim"' in html  # the claim ledger is highlighted too
    assert "第 105 行" in html or "行第" in html  # the finding's line and column are listed


def test_the_seven_input_items_are_listed_in_order_with_item_7_the_round_instruction(
    client, written
):
    html = client.get(f"/candidates/{written.candidate_id}").text
    titles = [
        "库事实",
        "已确认细纲",
        "前章正式正文基线",
        "文风 + 已绑定范式",
        "prevent 约束投影",
        "方法合同（只读）",
        "本轮人指令",
    ]
    positions = [html.index(t) for t in titles]
    assert positions == sorted(positions)
    assert re.search(r'id="item-7">写第 5 章<', html)


def test_an_input_item_opens_on_demand_with_its_stored_content(client, ids):
    r = client.get(f"/contexts/{ids['snapshot']}/items/3")
    assert r.status_code == 200 and "proseEvidence" in r.text
    assert client.get(f"/contexts/{ids['snapshot']}/items/9").status_code == 404


def test_the_prompt_and_raw_output_of_a_model_call_open_on_demand(client, engine, written):
    with engine.connect() as conn:
        call = (
            conn.execute(
                select(model_calls.c.id).where(
                    model_calls.c.run_id == written.run_id, model_calls.c.role == "writer"
                )
            )
            .scalars()
            .first()
        )
    run_html = client.get(f"/runs/{written.run_id}").text
    assert f"/model-calls/{call}" in run_html
    assert "发送的消息" not in run_html  # heavy fields are not on the run page itself
    detail = client.get(f"/model-calls/{call}").text
    assert "发送的消息（提示词）" in detail and "原始输出" in detail and "schemaVersion" in detail


def test_the_tool_read_ledger_is_on_the_run_page(client, engine, written):
    with engine.connect() as conn:
        tools = (
            conn.execute(select(tool_reads.c.tool).where(tool_reads.c.run_id == written.run_id))
            .scalars()
            .all()
        )
    assert tools, "the offline explore phase reads through the tools"
    html = client.get(f"/runs/{written.run_id}").text
    assert f"工具读取账本（依赖清单，{len(tools)}）" in html


def test_a_card_as_of_a_chapter_shows_what_the_freeze_excluded_and_why(client, engine, written):
    with engine.connect() as conn:
        card = find_card(conn, written.work_id, "孙悟空")
    full = client.get(f"/works/{written.work_id}/cards/{card.id}").text
    assert "龙宫得宝" in full and "被压五行山下" in full  # milestones; the planned arc apart
    early = client.get(f"/works/{written.work_id}/cards/{card.id}?as_of=1").text
    assert "第 1 章结束时的状态" in early
    frozen = early.split("冻结排除的内容")[1]
    assert "龙宫得宝" in frozen  # a chapter-3 milestone is excluded as of chapter 1, with a reason
    state = early.split("第 1 章结束时的状态")[1].split("冻结排除的内容")[0]
    assert "龙宫得宝" not in state


def test_the_chapter_page_diffs_two_revisions_and_says_who_changed_it(client, engine, written):
    with engine.connect() as conn:
        original = conn.execute(
            text(
                "select text from prose_blocks pb join chapters c on c.id = pb.chapter_id "
                "where c.work_id = :w and c.number = 2"
            ),
            {"w": written.work_id},
        ).scalar_one()
    edit_chapter(
        engine, written.work_id, 2, original.replace("祖师", "老祖", 1), expected_revision=1
    )
    html = client.get(f"/works/{written.work_id}/chapters/2?a=1&b=2").text
    assert "修订版 1 → 2 的差异" in html
    assert "<ins>老</ins>" in html and "<del>师</del>" in html
    assert "作者编辑" in html and "导入" in html and "基于修订版 1" in html
    old = client.get(f"/works/{written.work_id}/chapters/2?rev=1").text
    assert "历史版本" in old


def test_the_chapter_text_is_not_hard_wrapped(client, written):
    html = client.get(f"/works/{written.work_id}/chapters/1").text
    body = html.split('id="chapter-text">')[1].split("</div>")[0]
    assert "<br" not in body and "<p" not in body  # the stored text, line breaks as written
    assert "美猴王领一群猿猴" in body


@pytest.mark.parametrize(
    "url",
    [
        "/candidates/cand_none",
        "/runs/run_none",
        "/contexts/ctx_none",
        "/works/999",
        "/records/nope",
    ],
)
def test_a_missing_record_is_a_chinese_404_without_a_traceback(client, url):
    r = client.get(url)
    assert r.status_code == 404
    assert "不存在" in r.text or "没有" in r.text
    assert "Traceback" not in r.text


def test_evaluation_runs_live_in_their_own_zone_and_their_candidates_offer_no_accept(
    client, engine, written
):
    from tests.flow.test_state_machine import candidate_in_state

    zone_engine = engine.execution_options(muse_zone="all")  # the test writes evaluation rows
    run_id, cand_id = candidate_in_state(
        zone_engine, written.work_id, "PASSED", run_type="evaluation"
    )
    html = client.get(f"/works/{written.work_id}/runs").text
    production, zone = html.split('id="evaluation-zone"')
    assert written.run_id in production and run_id not in production
    assert run_id in zone
    page = client.get(f"/candidates/{cand_id}").text
    assert "评测/诊断候选，永不可采纳" in page
    assert 'id="accept-button"' not in page and 'id="edit-link"' not in page


def test_the_cached_input_share_is_shown_per_run_and_per_chapter(client, engine, written):
    """The receipts' tokens_cached, summed per run (runs list, run page) and per chapter."""
    html = client.get(f"/works/{written.work_id}/runs").text
    assert "输入缓存命中" in html and "按章的输入缓存命中" not in html  # offline: none reported
    with engine.begin() as conn:
        conn.execute(
            model_calls.update()
            .where(model_calls.c.run_id == written.run_id)
            .values(tokens_in=1000, tokens_cached=600)
        )
        calls = conn.execute(
            select(model_calls.c.id).where(model_calls.c.run_id == written.run_id)
        ).all()
    share = f"60%（{600 * len(calls)}/{1000 * len(calls)}）"
    html = client.get(f"/works/{written.work_id}/runs").text
    assert share in html
    assert f"按章的输入缓存命中（提供方报告的缓存 tokens / 输入 tokens）：第 5 章 {share}" in html
    assert f"输入缓存命中：{share}" in client.get(f"/runs/{written.run_id}").text
