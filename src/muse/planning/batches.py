"""Long planner runs in batches that resume where they failed (a volume's fine outlines).

A batch is a row with one item per chapter. Each item is drafted by one planner call and saved,
with the item marked done, in one transaction; a failure marks the item failed, stops the batch
(state ``failed``, the reason kept) and leaves every finished item in place. Resuming starts at
the first unfinished item — never over. The batch's ``attempts`` is a fencing token: a resume
takes the batch over by compare-and-set, and a runner that finds the token changed stops, so
two resumers never draft the same chapter twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, Row, select

from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.core.ids import new_id
from muse.planning.planner import call_planner, planner_inputs, store_output
from muse.planning.stages import FINE_OUTLINE
from muse.planning.tables import plan_batch_items, plan_batches, plan_sections
from muse.store.cas import compare_and_set

MAX_ITEMS = 500


@dataclass(frozen=True)
class BatchReport:
    id: str
    work_id: int
    state: str
    total: int
    done: int
    attempts: int
    last_error: str | None
    first: int | None
    last: int | None

    def wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "workId": self.work_id,
            "state": self.state,
            "total": self.total,
            "done": self.done,
            "attempts": self.attempts,
            "lastError": self.last_error,
            "chapters": [self.first, self.last],
        }


def get_batch(conn: Connection, batch_id: str) -> BatchReport:
    row = conn.execute(select(plan_batches).where(plan_batches.c.id == batch_id)).first()
    if row is None:
        raise NotFound(f"批次 {batch_id} 不存在。", hint="用 muse plan show 4 查看细纲批次。")
    return BatchReport(
        row.id,
        row.work_id,
        row.state,
        row.total,
        row.done,
        row.attempts,
        row.last_error,
        row.params.get("first"),
        row.params.get("last"),
    )


def list_batches(conn: Connection, work_id: int) -> list[BatchReport]:
    ids = (
        conn.execute(
            select(plan_batches.c.id)
            .where(plan_batches.c.work_id == work_id)
            .order_by(plan_batches.c.created_at)
        )
        .scalars()
        .all()
    )
    return [get_batch(conn, i) for i in ids]


def start_outline_batch(
    engine: Engine,
    work_id: int,
    first: int,
    last: int,
    *,
    provider: str,
    model: str,
    note: str | None = None,
) -> BatchReport:
    """Create a batch drafting fine outlines for chapters ``first``–``last`` and run it."""
    batch_id = create_outline_batch(
        engine, work_id, first, last, provider=provider, model=model, note=note
    )
    return run_batch(engine, batch_id)


def create_outline_batch(
    engine: Engine,
    work_id: int,
    first: int,
    last: int,
    *,
    provider: str,
    model: str,
    note: str | None = None,
) -> str:
    """Store a batch for chapters ``first``–``last`` (state ``running``, every item pending),
    refused at once when the range is bad or the gate blocks; :func:`run_batch` then drafts it.
    The workbench creates it in the request and runs it in the background, watching the rows."""
    if not 1 <= first <= last or last - first + 1 > MAX_ITEMS:
        raise InvalidInput(f"章节范围 {first}–{last} 不合法（每批最多 {MAX_ITEMS} 章）。")
    planner_inputs(engine, work_id, FINE_OUTLINE, 1, first, note)  # refuse early if gated
    batch_id, now = new_id("batch"), utc_now()
    with engine.begin() as conn:
        conn.execute(
            plan_batches.insert().values(
                id=batch_id,
                work_id=work_id,
                stage=FINE_OUTLINE.number,
                state="running",
                params={
                    "provider": provider,
                    "model": model,
                    "note": note,
                    "first": first,
                    "last": last,
                },
                total=last - first + 1,
                done=0,
                attempts=1,
                created_at=now,
                updated_at=now,
            )
        )
        conn.execute(
            plan_batch_items.insert(),
            [
                {
                    "id": new_id("bitem"),
                    "batch_id": batch_id,
                    "position": i + 1,
                    "target_chapter": n,
                    "state": "pending",
                    "attempts": 0,
                    "updated_at": now,
                }
                for i, n in enumerate(range(first, last + 1))
            ],
        )
    return batch_id


def run_batch(engine: Engine, batch_id: str) -> BatchReport:
    """Draft a batch :func:`create_outline_batch` stored (its first run: fencing token 1)."""
    return _run(engine, batch_id, token=1)


@dataclass(frozen=True)
class BatchItem:
    position: int
    chapter: int | None
    state: str  # pending | done | failed
    section_id: str | None
    section_state: str | None  # the saved outline's state now (shadow, confirmed, …)
    receipt_id: str | None
    error: str | None
    attempts: int
    updated_at: Any


def batch_items(conn: Connection, batch_id: str) -> list[BatchItem]:
    """The batch's items in order, each with the outline it saved and that outline's state."""
    get_batch(conn, batch_id)  # NotFound with its message
    rows = conn.execute(
        select(plan_batch_items, plan_sections.c.state.label("section_state"))
        .select_from(
            plan_batch_items.outerjoin(
                plan_sections, plan_sections.c.id == plan_batch_items.c.section_id
            )
        )
        .where(plan_batch_items.c.batch_id == batch_id)
        .order_by(plan_batch_items.c.position)
    ).all()
    return [
        BatchItem(
            r.position,
            r.target_chapter,
            r.state,
            r.section_id,
            r.section_state,
            r.receipt_id,
            r.error,
            r.attempts,
            r.updated_at,
        )
        for r in rows
    ]


def resume_batch(engine: Engine, batch_id: str) -> BatchReport:
    """Take the batch over and continue from its first unfinished item."""
    with engine.begin() as conn:
        batch = get_batch(conn, batch_id)
        if batch.state == "completed":
            return batch
        token = batch.attempts + 1
        compare_and_set(
            conn,
            plan_batches,
            where={"id": batch_id, "attempts": batch.attempts},
            values={"state": "running", "attempts": token, "updated_at": utc_now()},
            message=f"批次 {batch_id} 正被另一个进程续跑。",
        )
    return _run(engine, batch_id, token=token)


def _pending(conn: Connection, batch_id: str) -> Sequence[Row[*tuple[Any, ...]]]:
    return conn.execute(
        select(plan_batch_items)
        .where(plan_batch_items.c.batch_id == batch_id, plan_batch_items.c.state != "done")
        .order_by(plan_batch_items.c.position)
    ).all()


def _run(engine: Engine, batch_id: str, *, token: int) -> BatchReport:
    with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn, conn.begin():
        row = conn.execute(select(plan_batches).where(plan_batches.c.id == batch_id)).one()
        items = _pending(conn, batch_id)
    params = row.params
    for item in items:
        try:
            data = planner_inputs(
                engine, row.work_id, FINE_OUTLINE, 1, item.target_chapter, params.get("note")
            )[0]
            result = call_planner(
                engine, FINE_OUTLINE, data, provider=params["provider"], model=params["model"]
            )
            with engine.begin() as conn:
                _hold(conn, batch_id, token)
                drafted = store_output(
                    conn,
                    row.work_id,
                    FINE_OUTLINE,
                    result,
                    variant=None,
                    chapter=item.target_chapter,
                    origin="batch",
                    extra={"batchId": batch_id, "position": item.position},
                )
                _item_done(conn, batch_id, item, drafted.section_id, result.receipt_id)
        except StaleTransition:
            raise
        except Exception as err:  # noqa: BLE001 - any failure stops the batch, recorded
            _item_failed(engine, batch_id, item, token, err)
            break
    else:
        with engine.begin() as conn:
            _hold(conn, batch_id, token)
            conn.execute(
                plan_batches.update()
                .where(plan_batches.c.id == batch_id)
                .values(state="completed", last_error=None, updated_at=utc_now())
            )
    with engine.connect() as conn:
        return get_batch(conn, batch_id)


def _hold(conn: Connection, batch_id: str, token: int) -> None:
    """Still ours? (``FOR UPDATE``: the check holds until this transaction commits.)"""
    found = conn.execute(
        select(plan_batches.c.attempts).where(plan_batches.c.id == batch_id).with_for_update()
    ).scalar()
    if found != token:
        raise StaleTransition(f"批次 {batch_id} 已被另一次续跑接管，本次停止。")


def _item_done(
    conn: Connection,
    batch_id: str,
    item: Row[*tuple[Any, ...]],
    section_id: str | None,
    receipt_id: str,
) -> None:
    now = utc_now()
    conn.execute(
        plan_batch_items.update()
        .where(plan_batch_items.c.id == item.id)
        .values(
            state="done",
            section_id=section_id,
            receipt_id=receipt_id,
            error=None,
            attempts=item.attempts + 1,
            updated_at=now,
        )
    )
    conn.execute(
        plan_batches.update()
        .where(plan_batches.c.id == batch_id)
        .values(done=plan_batches.c.done + 1, updated_at=now)
    )


def _item_failed(
    engine: Engine, batch_id: str, item: Row[*tuple[Any, ...]], token: int, err: Exception
) -> None:
    reason = str(err) or type(err).__name__
    message = f"第 {item.position} 项（第 {item.target_chapter} 章）失败：{reason}"
    with engine.begin() as conn:
        _hold(conn, batch_id, token)
        now = utc_now()
        conn.execute(
            plan_batch_items.update()
            .where(plan_batch_items.c.id == item.id)
            .values(state="failed", error=reason, attempts=item.attempts + 1, updated_at=now)
        )
        conn.execute(
            plan_batches.update()
            .where(plan_batches.c.id == batch_id)
            .values(state="failed", last_error=message, updated_at=now)
        )
