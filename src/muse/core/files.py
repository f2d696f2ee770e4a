"""Writing a file so that a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def replace_atomically(target: Path, content: bytes | Callable[[BinaryIO], object]) -> None:
    """Create ``target``'s directory, fill a temporary file beside it with ``content`` (bytes, or
    a function that writes to the file), then put it in ``target``'s place in one step
    (``os.replace``); on any failure the temporary file goes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(content, bytes):
                f.write(content)
            else:
                content(f)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
