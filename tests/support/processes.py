"""A process identity whose process has ended: what a run's owner is after its server died."""

from __future__ import annotations

import subprocess
import sys

from muse.core.process import owner_of


def dead_owner() -> str:
    """The identity (``runs.owner``) of a real process of this host that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        owner = owner_of(child.pid)
    finally:
        child.kill()
        child.wait()
    return owner
