"""The built-in job kinds: post-chapter extraction and the search index refresh.

``extract_chapter`` (queued by the accept commit, flow/accept.py) runs the extractor on the
accepted chapter. Which model: the one the author named for this worker (``muse worker -p P -m
M``), else the work's ``muse models use extractor`` choice, else the provider and model the
author chose for the run whose candidate was accepted —
never one picked from the environment (spec 003: every call names both). A job for a revision
that is no longer the chapter's current one is done-as-skipped with the reason.

``search_index.refresh`` (queued when the user dictionary changes, context/search/builder.py)
brings a work's prose index up to date.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.agents import ModelChoice, recorded_choice, work_choices
from muse.context import REFRESH_JOB, run_refresh_job
from muse.core.errors import NotFound
from muse.flow import last_accepted_run, show_run
from muse.knowledge import (
    ExtractionReport,
    StaleChapter,
    apply_extraction,
    run_extractor,
    stale_reason,
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

EXTRACT_JOB = "extract_chapter"


def _model_choice(job: ClaimedJob, ctx: JobContext) -> ModelChoice:
    """The worker's flags, else the work's ``muse models use extractor`` choice, else the model
    of the run whose candidate was accepted (or the work's last accepted run)."""
    if ctx.provider or ctx.model:
        if not (ctx.provider and ctx.model):
            raise PermanentJobError("指定抽取模型时必须同时给出 --provider 和 --model。")
        return ModelChoice("extractor", ctx.provider, ctx.model, "flag")
    if job.work_id is not None:
        with reading(ctx.engine) as conn:
            chosen = work_choices(conn, job.work_id).get("extractor")
        if chosen is not None:
            return chosen
    run_id = job.payload.get("runId")
    if not isinstance(run_id, str):  # an author's edit or revert: the work's last accepted run
        run_id = _last_accepted_run(ctx, job.work_id)
    if run_id is None:
        raise PermanentJobError(
            f"任务 {job.id} 没有关联的运行，作品也还没有采纳过候选，无法确定抽取用的模型。",
            hint="用 muse models use extractor 提供方:模型ID 为作品选定抽取模型，"
            "或 muse worker --provider P --model M 显式指定，再 muse jobs retry 该任务。",
        )
    with reading(ctx.engine) as conn:
        try:
            run = show_run(conn, run_id)
        except NotFound as err:
            raise PermanentJobError(
                err.message, hint="用 muse worker -p P -m M 显式指定模型。"
            ) from None
    return ModelChoice("extractor", run["provider"], run["model"], "run")


def _last_accepted_run(ctx: JobContext, work_id: int | None) -> str | None:
    """The work's most recent run whose candidate became canon (its provider and model are the
    ones the author last trusted with this book)."""
    if work_id is None:
        return None
    with reading(ctx.engine) as conn:
        return last_accepted_run(conn, work_id)


def summarize(report: ExtractionReport) -> str:
    """One line for the author, in Chinese."""
    new = report.count("card", "new")
    update = report.count("card", "update")
    proposed = report.count("fact", "proposed")
    parts = [
        f"第 {report.chapter} 章章后抽取：卡片草稿 {new + update} 条（新卡 {new}，更新 {update}）",
        f"冲突 {len(report.conflicts)} 条",
        f"事实增量 {proposed} 条待批准",
    ]
    duplicates = report.count("card", "duplicate") + report.count("fact", "duplicate")
    if duplicates:
        parts.append(f"已存在 {duplicates} 条未重复写入")
    if report.rejected:
        parts.append(f"驳回 {len(report.rejected)} 条（引文或格式不合格）")
    return "，".join(parts) + "。用 muse drafts / muse conflicts / muse facts 查看。"


def _result(report: ExtractionReport, provider: str, model: str) -> dict[str, Any]:
    return {
        **report.model_dump(mode="json"),
        "provider": provider,
        "model": model,
        "rejected": [i.model_dump(mode="json") for i in report.rejected],
        "summary": summarize(report),
    }


def extract_chapter(job: ClaimedJob, ctx: JobContext) -> Apply:
    work_id = payload_int(job, "workId")
    chapter = payload_int(job, "chapter")
    revision = payload_int(job, "revision")
    where = {"workId": work_id, "chapter": chapter, "revision": revision}
    with reading(ctx.engine) as conn:
        reason = stale_reason(conn, work_id, chapter, revision)
    if reason:
        return skipped(reason, **where)
    choice = _model_choice(job, ctx)
    provider, model = choice.provider, choice.model
    run_id = job.payload.get("runId") if isinstance(job.payload.get("runId"), str) else None
    try:
        with recorded_choice(choice):  # the receipt says where the model came from
            call = run_extractor(
                ctx.engine,
                work_id,
                chapter,
                revision,
                provider=provider,
                model=model,
                run_id=run_id,
            )
    except StaleChapter as err:
        return skipped(err.message, **where)

    def apply(conn: Connection) -> dict[str, Any]:
        try:
            report = apply_extraction(
                conn,
                work_id,
                chapter,
                revision,
                call.output,
                receipt_id=call.receipt_id,
                origin_detail={"jobId": job.id, "runId": run_id},
            )
        except StaleChapter as err:  # the chapter moved on during the model call
            return {"skipped": True, "reason": err.message, **where}
        return _result(report, provider, model)

    return apply


def refresh_search_index(job: ClaimedJob, ctx: JobContext) -> Apply:
    work_id = payload_int(job, "work_id", "workId")

    def apply(conn: Connection) -> dict[str, Any]:
        version = run_refresh_job(conn, {"work_id": work_id})
        return {"workId": work_id, "indexVersion": version, "summary": "检索索引已是最新。"}

    return apply


register_handler(EXTRACT_JOB, extract_chapter, label="章后抽取")
register_handler(REFRESH_JOB, refresh_search_index, label="检索索引刷新")

from muse.worker import book_extraction  # noqa: E402, F401  (registers book_extract_batch)
