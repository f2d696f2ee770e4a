"""Input size caps: every file Muse reads for the author is read with a bound.

A file larger than its cap is refused with a message saying how large it is, what the cap is
and which flag raises it; nothing is read past the cap (``/dev/zero`` or a pipe that never ends
cost at most cap + 1 bytes), and nothing is stored.
"""

from __future__ import annotations

from pathlib import Path

from muse.core.errors import InvalidInput

MB = 1024 * 1024
MAX_BOOK_MB = 64  # a 5-million-character novel is about 15 MB of UTF-8
MAX_YAML_MB = 8  # cards, fine outlines, planning stages
MAX_CHAPTER_CHARS = 200_000  # one chapter; past this the split is almost surely wrong


def read_capped(path: Path, max_mb: float, *, what: str, flag: str) -> bytes:
    """The bytes of ``path``, or ``InvalidInput`` if it holds more than ``max_mb`` MiB."""
    if max_mb <= 0:
        raise InvalidInput(f"{flag} 必须是正数（收到 {max_mb}）。")
    limit = int(max_mb * MB)
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except IsADirectoryError:
        raise InvalidInput(f"{what} {path} 是目录，不是文件。") from None
    except OSError as err:
        raise InvalidInput(f"无法读取{what} {path}：{err.strerror or err}。") from None
    refuse_oversized(len(data), max_mb, what=what, name=str(path), flag=flag)
    return data


def refuse_oversized(size: int, max_mb: float, *, what: str, name: str, flag: str) -> None:
    """``InvalidInput`` when ``size`` bytes exceed ``max_mb`` MiB (a file read or uploaded)."""
    if size > int(max_mb * MB):
        raise InvalidInput(
            f"{what} {name} 超过大小上限 {max_mb:g} MB，未读取、未写入任何内容。",
            hint=f"确认文件无误后可用 {flag} 调高上限。",
        )
