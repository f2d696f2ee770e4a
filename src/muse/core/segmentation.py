"""The process's one jieba (rjieba), shared by the index tokenizer and the entity tagger.

Why one: an ``rjieba.Jieba()`` loads jieba's default dictionary (~0.1 s CPU and ~25 MB each), and
``import rjieba`` already builds one at import (the instance behind ``rjieba.cut``). Muse used to
hold that one plus a private instance per use, three per ``muse write``. Tokens and tags are a
pure function of (text, dictionary, rjieba version) as long as nobody changes the dictionary, so
the instance is shared and **never mutated**: no code in Muse calls ``add_word``,
``suggest_freq`` or ``clear`` on it (a test scans the sources), and coined names are handled by
pre-splitting on the work's terms instead (see :mod:`muse.context.search.tokenizer`).

``import rjieba`` is deferred to the first call: a command that tokenises nothing never loads it.
"""

from __future__ import annotations

import threading
from functools import cache
from importlib.metadata import version as package_version
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import rjieba

_LOCK = threading.Lock()
_instance: rjieba.Jieba | None = None


def shared_jieba() -> rjieba.Jieba:
    """The one jieba of the process, with the default dictionary only, loaded on first use."""
    global _instance
    with _LOCK:
        if _instance is None:
            import rjieba

            # the instance rjieba's import built; a fresh one only if a release stops doing so
            _instance = getattr(rjieba.cut, "__self__", None) or rjieba.Jieba()
        return _instance


@cache
def rjieba_version() -> str:
    """The installed rjieba's version, read from its metadata (without importing it)."""
    return package_version("rjieba")
