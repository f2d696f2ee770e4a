"""Whether the start-up sweep (``flow.sweep``) can have anything to do, asked cheaply.

Every command sweeps on start-up, but a sweep only ever moves a run that sits in a working node
(a passed deadline or a stale one). One indexed query says whether any run does; only then is
the sweep itself (the state machine, its tables and transitions) imported. The probe reads the
raw table, evaluation runs included, so it can only say yes too often, never too rarely. A set
``MUSE_SWEEP_STALE_AFTER_S`` always runs the sweep, which validates it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from muse.flow.states import WORKING_NODES

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from muse.store.plain import PlainReader

STALE_AFTER_ENV = "MUSE_SWEEP_STALE_AFTER_S"

_WORKING = ", ".join(f"'{node}'" for node in WORKING_NODES)  # code constants, not input
_ANY_WORKING_RUN = f"SELECT 1 FROM runs WHERE state IN ({_WORKING}) LIMIT 1"


def sweep_may_move(engine: Engine) -> bool:
    """False only when no run is in a working node (so a sweep would move nothing)."""
    from sqlalchemy import text

    if os.environ.get(STALE_AFTER_ENV):
        return True
    with engine.connect() as conn:
        return conn.execute(text(_ANY_WORKING_RUN)).first() is not None


def sweep_may_move_plain(reader: PlainReader) -> bool:
    """:func:`sweep_may_move` through the plain read path (:mod:`muse.store.plain`)."""
    if os.environ.get(STALE_AFTER_ENV):
        return True
    return bool(reader.rows(_ANY_WORKING_RUN))
