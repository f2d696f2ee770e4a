"""Named fault-injection points for crash tests ("killed mid-commit leaves all or nothing").

A commit that must be atomic calls :func:`fault_point` between its writes. When the environment
variable ``MUSE_FAULT_POINT`` names that point, the process kills itself with SIGKILL on the
spot — no ``finally``, no rollback handler, no atexit: exactly what a power cut or an OOM kill
does to the process. The database must then show the state from before the transaction.

The variable is read once, at import; without it every point is a single ``is None`` test.
Tests start a subprocess with the variable set and inspect the database afterwards.
"""

from __future__ import annotations

import os
import signal

FAULT_POINT_ENV = "MUSE_FAULT_POINT"

_ACTIVE: str | None = os.environ.get(FAULT_POINT_ENV) or None


def fault_point(name: str) -> None:
    """Die here, by SIGKILL, if ``MUSE_FAULT_POINT`` equals ``name``."""
    if _ACTIVE is not None and name == _ACTIVE:
        os.kill(os.getpid(), signal.SIGKILL)
