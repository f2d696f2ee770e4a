"""The ``book_extract_batch`` job: one chapter of 拆书 extraction (knowledge/book_extraction.py).

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
    ChapterExtraction,
    StaleChapter,
    apply_extraction,
    batch_input,
    canonical_names,
    known_entities,
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
    from muse.worker.builtin import summarize  # noqa: PLC0415  (builtin imports this module)

    work_id = payload_int(job, "workId")
    chapter = payload_int(job, "chapter")
    revision = payload_int(job, "revision")
    provider, model = _named(job, "provider"), _named(job, "model")
    where = {"workId": work_id, "chapter": chapter, "revision": revision}
    with reading(ctx.engine) as conn:
        reason = stale_reason(conn, work_id, chapter, revision)
        if reason:
            return skipped(reason, **where)
        task_input = batch_input(conn, work_id, chapter)
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
            report = apply_extraction(
                conn,
                work_id,
                chapter,
                revision,
                output,
                receipt_id=result.receipt_id,
                origin_detail={"jobId": job.id, "method": "book_extract"},
            )
        except StaleChapter as err:
            return {"skipped": True, "reason": err.message, **where}
        return {
            **report.model_dump(mode="json"),
            "provider": provider,
            "model": model,
            "rejected": [i.model_dump(mode="json") for i in report.rejected],
            "summary": summarize(report),
        }

    return apply


register_handler(BATCH_JOB, extract_batch, label="拆书抽取")
