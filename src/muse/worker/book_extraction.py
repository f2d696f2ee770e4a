"""The ``book_extract_batch`` job: one batch of chapters of 拆书 extraction (knowledge/book_extraction.py).

The model call happens outside any transaction; the drafts and fact deltas are written in the
transaction that marks the job done, so a batch's effects land at most once and a done batch is
never called again. The provider and model are the ones the author named on the command line
(stored in the payload), never taken from the environment.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.agents import dispatch
from muse.knowledge import (
    BATCH_JOB,
    BatchReport,
    ChapterExtraction,
    ExtractionItem,
    StaleBatch,
    apply_batch,
    batch_input,
    canonical_names,
    known_entities,
    payload_chapters,
    stale_reason,
    unify_names,
)
from muse.store.engine import reading
from muse.store.jobs import ClaimedJob
from muse.worker.handlers import (
    Apply,
    JobContext,
    PermanentJobError,
    payload_int,
    register_handler,
    skipped,
)


def _named(job: ClaimedJob, key: str) -> str:
    value = job.payload.get(key)
    if not isinstance(value, str) or not value:
        raise PermanentJobError(f"任务 {job.id} 的参数缺少「{key}」，无法执行。")
    return value


def extract_batch(job: ClaimedJob, ctx: JobContext) -> Apply:
    work_id = payload_int(job, "workId")
    chapters = payload_chapters(job.payload)
    if not chapters:
        raise PermanentJobError(f"任务 {job.id} 的参数缺少章节，无法执行。")
    provider, model = _named(job, "provider"), _named(job, "model")
    numbers = [n for n, _ in chapters]
    where = {"workId": work_id, "chapters": [list(c) for c in chapters], "chapter": numbers[0]}
    with reading(ctx.engine) as conn:
        for number, revision in chapters:
            reason = stale_reason(conn, work_id, number, revision)
            if reason:
                return skipped(reason, **where)
        task_input = batch_input(conn, work_id, numbers)
        names = canonical_names(known_entities(conn, work_id))
    result = dispatch(
        ctx.engine,
        role="extractor",
        task="extract",
        provider=provider,
        model=model,
        task_input=task_input,
        output_model=ChapterExtraction,
    )
    assert isinstance(result.output, ChapterExtraction)
    output = unify_names(result.output, names)

    def apply(conn: Connection) -> dict[str, Any]:
        try:
            report = apply_batch(
                conn,
                work_id,
                chapters,
                output,
                receipt_id=result.receipt_id,
                origin_detail={"jobId": job.id, "method": "book_extract"},
            )
        except StaleBatch as err:
            return {"skipped": True, "reason": err.message, **where}
        return {
            **report.to_json(),
            **where,
            "provider": provider,
            "model": model,
            "summary": _summary(report),
        }

    return apply


def _summary(report: BatchReport) -> str:
    def count(items: list[ExtractionItem], *statuses: str) -> int:
        return sum(1 for i in items if i.status in statuses)

    first, last = report.chapters[0][0], report.chapters[-1][0]
    where = f"第 {first} 章" if first == last else f"第 {first}–{last} 章"
    return (
        f"{where}：卡片草稿新增 {count(report.cards, 'new', 'update')}、"
        f"并入 {count(report.cards, 'merged')}，"
        f"事实 {count(report.facts, 'proposed')} 条（里程碑 "
        f"{count(report.milestones, 'new', 'update', 'merged')}），"
        f"冲突 {len(report.conflicts)}，拒收 {len(report.rejected)}"
    )


register_handler(BATCH_JOB, extract_batch, label="拆书抽取")
