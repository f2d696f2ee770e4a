"""Compiled prompt templates, written once at install and read by every process.

Jinja compiles a template's source to Python code on its first use in a process: about 7 ms of
every ``muse write`` (its three templates and their includes). ``make install`` compiles them all
once (``python -m muse.agents.template_cache``), as it compiles the package's ``.pyc`` files, into
``prompts/__jinjacache__``; a process then loads the code instead of compiling it.

Never stale and never required:

* an entry is keyed by the template's name, Jinja's version and the environment's options, and
  holds the checksum of the source it was compiled from; Jinja compiles the template afresh when
  the checksum differs (an edited template), when the entry was written by another Python or
  Jinja (its header), or when there is no entry;
* at run time the cache is read-only: nothing is written into an installed package, and a
  missing or unreadable directory only means compiling as before.
"""

from __future__ import annotations

from hashlib import sha1
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

from muse.core.files import replace_atomically

CACHE_DIR = Path(__file__).with_name("prompts") / "__jinjacache__"


class InstalledTemplateCache(BytecodeCache):
    """Compiled templates in ``directory``: read always, written only when ``writable``."""

    def __init__(self, directory: Path, options: dict[str, Any], *, writable: bool = False):
        self.directory = directory
        self.writable = writable
        settings = ",".join(f"{k}={v!r}" for k, v in sorted(options.items()))
        self._salt = f"jinja2 {jinja2.__version__}|{settings}"

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        # the name, not the file's path: an installed package may move; the source checksum
        # in the entry decides whether the code is still that template's
        return sha1(f"{self._salt}|{name}".encode()).hexdigest()

    def _path(self, bucket: Bucket) -> Path:
        return self.directory / f"{bucket.key}.cache"

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            with open(self._path(bucket), "rb") as f:
                bucket.load_bytecode(f)
        except OSError:
            return  # no entry: Jinja compiles the template
        except Exception:  # a damaged entry (a truncated pickle …): the same, never an error
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        if not self.writable:
            return
        replace_atomically(self._path(bucket), bucket.write_bytecode)


def precompile(directory: Path = CACHE_DIR) -> int:
    """Compile every prompt template into ``directory``; the number of templates."""
    from muse.agents.prompts import ENVIRONMENT_OPTIONS, template_environment

    env = template_environment(
        InstalledTemplateCache(directory, ENVIRONMENT_OPTIONS, writable=True)
    )
    names = env.list_templates(extensions=["j2"])
    for name in names:
        env.get_template(name)
    return len(names)


if __name__ == "__main__":
    print(f"已预编译 {precompile()} 个提示词模板。")
