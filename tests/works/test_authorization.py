"""Authorization snapshots fail closed when the source's status or purpose no longer allows use."""

import pytest

from muse.core.errors import AuthorizationError
from muse.works import authorization, catalog
from muse.works.contracts import Purpose, SourceKind
from muse.works.tables import works


def _work(engine, kind=SourceKind.own):
    with engine.begin() as conn:
        return catalog.create_work(conn, "书", source_kind=kind, source_version="sha256:abc")


def test_snapshot_records_purpose_status_and_version(engine):
    work_id = _work(engine)
    with engine.begin() as conn:
        snap = authorization.take_snapshot(conn, work_id, "production")
        again = authorization.get_snapshot(conn, snap.id)
    assert again == snap
    assert (snap.purpose, snap.source_status, snap.source_version) == (
        Purpose.production,
        "active",
        "sha256:abc",
    )


def test_licensed_reference_book_is_evaluation_only(engine):
    work_id = _work(engine, SourceKind.licensed)
    with engine.begin() as conn:
        assert (
            authorization.take_snapshot(conn, work_id, "evaluation").purpose == Purpose.evaluation
        )
        with pytest.raises(AuthorizationError, match="正式创作"):
            authorization.take_snapshot(conn, work_id, "production")


@pytest.mark.parametrize("status", ["suspended", "withdrawn"])
def test_status_change_invalidates_frozen_snapshot(engine, status):
    work_id = _work(engine)
    with engine.begin() as conn:
        snap = authorization.take_snapshot(conn, work_id, "production")
        authorization.set_source_status(conn, work_id, status)
        with pytest.raises(AuthorizationError):
            authorization.revalidate(conn, snap.id)
        with pytest.raises(AuthorizationError):
            authorization.take_snapshot(conn, work_id, "production")


def test_source_version_change_invalidates_snapshot(engine):
    work_id = _work(engine)
    with engine.begin() as conn:
        snap = authorization.take_snapshot(conn, work_id, "production")
        conn.execute(
            works.update().where(works.c.id == work_id).values(source_version="sha256:new")
        )
        with pytest.raises(AuthorizationError, match="来源版本"):
            authorization.revalidate(conn, snap.id)


def test_reactivated_source_validates_again(engine):
    work_id = _work(engine)
    with engine.begin() as conn:
        snap = authorization.take_snapshot(conn, work_id, "production")
        authorization.set_source_status(conn, work_id, "suspended")
        authorization.set_source_status(conn, work_id, "active")
        assert authorization.revalidate(conn, snap.id).id == snap.id


def test_database_refuses_to_change_a_snapshot(engine):
    from sqlalchemy.exc import DBAPIError

    from muse.works.tables import authorization_snapshots

    work_id = _work(engine)
    with engine.begin() as conn:
        snap = authorization.take_snapshot(conn, work_id, "production")
    for statement in (
        authorization_snapshots.update().values(source_status="withdrawn"),
        authorization_snapshots.delete(),
    ):
        with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
            conn.execute(statement.where(authorization_snapshots.c.id == snap.id))
