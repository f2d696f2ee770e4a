"""Every stored table, row by row (001 §8.6: what the board cannot show was not stored).

The dedicated pages show the author's records in context; this page lists every table of the
schema with its row count and shows any table's rows, newest first, paginated, with long values
shortened and secret-named columns hidden. ``TABLE_PAGES`` says, for each table, which page shows
its rows in context; a table missing from it is a bug (``tests/web/test_tables_reachable.py``).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import func, select

from muse.core.errors import NotFound
from muse.store.migrate import load_all_tables
from muse.web.deps import read
from muse.web.render import is_secret_name, page, redact

router = APIRouter()

PAGE_SIZE = 50
MAX_CELL = 300

# table → the page that shows its rows in context (the records page shows every table).
TABLE_PAGES: dict[str, str] = {
    "works": "作品首页",
    "volumes": "章节列表（卷）",
    "chapters": "章节列表 / 章节页",
    "prose_blocks": "章节页：正文与修订版",
    "authorization_snapshots": "运行页：授权快照",
    "jobs": "任务队列",
    "model_calls": "运行页：模型调用（提示词与原始输出按需展开）",
    "tool_reads": "运行页：工具读取账本",
    "cards": "知识卡",
    "card_milestones": "知识卡页：演变",
    "card_relations": "知识卡页：关系",
    "card_drafts": "卡片草稿",
    "card_conflicts": "冲突队列",
    "source_refs": "章节页：出处引用；知识卡页：出处",
    "fact_deltas": "事实增量；候选页：随采纳批准",
    "fact_ledger": "事实台账",
    "card_book_cache": "范式·文风·索引：派生缓存（卡片册）",
    "knowledge_versions": "范式·文风·索引：派生缓存（知识卡变更令牌）",
    "plan_sections": "规划",
    "plan_batches": "规划：细纲批次",
    "plan_batch_items": "规划：细纲批次（每个批次的页面列出它的条目）",
    "plan_reviews": "规划：各阶段的「需复核」（上层被替换后，下层已确认条目的复核标记）",
    "pattern_cards": "范式·文风·索引：范式卡",
    "pattern_bindings": "范式·文风·索引：范式绑定",
    "style_profiles": "范式·文风·索引：文风档案",
    "context_snapshots": "上下文查看器",
    "search_chunks": "检索索引：一章的片段",
    "search_index_chapters": "范式·文风·索引：检索索引（每章状态与片段数）",
    "search_index_works": "范式·文风·索引：检索索引（索引版本）",
    "runs": "运行记录 / 运行页",
    "run_events": "运行页：节点时间线与事件",
    "run_evidence": "运行页：补证请求",
    "candidates": "候选稿 / 候选页",
    "decisions": "候选页：决定记录",
    "model_policy_versions": "模型：各角色现行策略版本（muse models approve）",
    "model_choices": "模型：各角色选定的模型（muse models use）",
    "eval_sets": "评测区：预注册评测集",
    "eval_runs": "评测区：评测报告（样本）",
    "eval_arms": "评测区：样本页（三臂）",
    "eval_judgements": "评测区：样本页（盲评打分）",
    "eval_rounds": "评测区：评测报告（离线优化轮次）",
    "candidate_judgements": "候选页：按需评审（muse candidate judge）",
}


@router.get("/records", response_class=HTMLResponse)
def tables(request: Request) -> Response:
    metadata = load_all_tables()
    with read(request) as conn:
        counts = {
            name: conn.execute(select(func.count()).select_from(table)).scalar_one()
            for name, table in sorted(metadata.tables.items())
        }
    return page(request, "records.html", title="数据表", counts=counts, pages=TABLE_PAGES)


@router.get("/records/{name}", response_class=HTMLResponse)
def table_rows(request: Request, name: str, page_no: int = 1) -> Response:
    table = load_all_tables().tables.get(name)
    if table is None:
        raise NotFound(f"没有名为 {name} 的数据表。")
    order = list(table.primary_key.columns) or list(table.columns)[:1]
    offset = (max(page_no, 1) - 1) * PAGE_SIZE
    with read(request) as conn:
        total = conn.execute(select(func.count()).select_from(table)).scalar_one()
        rows = conn.execute(
            select(table).order_by(*(c.desc() for c in order)).limit(PAGE_SIZE).offset(offset)
        ).mappings()
        shown = [{k: _cell(k, v) for k, v in r.items()} for r in rows]
    return page(
        request,
        "table.html",
        title=f"数据表 {name}",
        name=name,
        columns=[c.name for c in table.columns],
        rows=shown,
        total=total,
        page_no=max(page_no, 1),
        pages=max(1, -(-total // PAGE_SIZE)),
        context_page=TABLE_PAGES.get(name),
    )


def _cell(column: str, value: Any) -> str:
    if is_secret_name(column):
        return "（已隐藏）"
    if isinstance(value, dict | list):
        text = json.dumps(redact(value), ensure_ascii=False, default=str)
    else:
        text = "" if value is None else str(value)
    return text if len(text) <= MAX_CELL else text[:MAX_CELL] + f"…（共 {len(text)} 字符）"
