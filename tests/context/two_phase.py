"""Helpers of the two-phase writer tests: a book with cards, explore → replay → freeze."""

from __future__ import annotations

from muse.context.explore.contracts import ExplorationManifest, ReplayedRead
from muse.context.explore.replaying import replay
from muse.context.writer_context import FrozenContext, freeze_context
from muse.flow.exploration import explore
from muse.knowledge.card_import import import_cards_yaml
from muse.planning.fine_outlines import load_confirmed
from muse.store.engine import reading
from muse.works.authorization import take_snapshot

from .test_card_context import CARDS

RUN = "run_00000000000000000042"


def with_cards(engine, work_id: int) -> int:
    with engine.begin() as conn:
        import_cards_yaml(conn, work_id, CARDS, confirm=True)
    return work_id


def outline_of(engine, work_id: int, target: int):
    with engine.connect() as conn:
        return load_confirmed(conn, work_id, target)


def explored(engine, work_id: int, target: int, **kwargs) -> ExplorationManifest:
    _, outline = outline_of(engine, work_id, target)
    return explore(
        engine,
        run_id=RUN,
        work_id=work_id,
        as_of=target - 1,
        target_chapter=target,
        outline=outline,
        provider=kwargs.pop("provider", "offline"),
        model=kwargs.pop("model", "offline-1"),
        **kwargs,
    )


def replayed(engine, manifest: ExplorationManifest, **kwargs) -> list[ReplayedRead]:
    with reading(engine) as conn:
        return replay(conn, manifest, **kwargs)


def freeze(
    engine, work_id: int, target: int, *, store: bool = True, authorization=None, **kwargs
) -> FrozenContext:
    with engine.begin() as conn:
        section_id, outline = load_confirmed(conn, work_id, target)
        auth = authorization or take_snapshot(conn, work_id, "production")
        return freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=RUN,
            attempt=1,
            as_of=target - 1,
            authorization=auth,
            store=store,
            **kwargs,
        )


def two_phase(engine, work_id: int, target: int, **kwargs) -> FrozenContext:
    """explore → replay → freeze, as the production run wires them."""
    manifest = explored(engine, work_id, target)
    reads = replayed(engine, manifest)
    return freeze(engine, work_id, target, exploration=manifest, replayed=reads, **kwargs)
