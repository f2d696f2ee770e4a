"""A YAML file shipped inside the package, read as the JSON written from it once at install.

``import yaml`` costs every process that reads one YAML file ~124 M instructions (~25 ms CPU):
PyYAML's modules and the regular expression its reader compiles. ``muse write`` reads one
packaged file, the role catalog (``agents/roles.yaml``), and nothing else in YAML. ``make
install`` therefore writes each file of :data:`PACKAGED` as JSON beside it
(``__yamlcache__/<name>.json``, ``python -m muse.core.packaged_yaml``), as it precompiles the
prompt templates, and :func:`load_packaged` reads that JSON instead of parsing the YAML.

Never stale and never required:

* an entry holds the SHA-256 of the YAML bytes it was written from; :func:`load_packaged` reads
  the YAML file's bytes every time and uses the entry only when the hash matches (an edited file
  is parsed afresh);
* a file whose parsed data does not survive a JSON round trip unchanged (a date, an integer
  key) gets no entry;
* at run time the cache is read-only: a missing or unreadable entry only means parsing the YAML
  as before.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from muse.core.files import replace_atomically

_ROOT = Path(__file__).resolve().parents[1]  # the muse package
PACKAGED = ("agents/roles.yaml", "knowledge/card_types.yaml")  # relative to the package
CACHE_DIR = "__yamlcache__"


class PackagedYamlError(ValueError):
    """A packaged YAML file that does not parse (its message is PyYAML's)."""


def load_packaged(path: Path) -> Any:
    """The data of the YAML file ``path``: from its install-time JSON when that was written from
    these very bytes, else parsed with PyYAML's safe loader. Raises OSError when the file cannot
    be read and :class:`PackagedYamlError` when it is no valid YAML."""
    raw = path.read_bytes()
    cached = _cached(path, _digest(raw))
    if cached is not None:
        return cached["data"]
    return _parse(raw)


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _entry_path(path: Path) -> Path:
    return path.parent / CACHE_DIR / f"{path.name}.json"


def _cached(path: Path, digest: str) -> dict[str, Any] | None:
    try:
        entry = json.loads(_entry_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # no entry, or a damaged one: parse the YAML
    if not isinstance(entry, dict) or entry.get("sha256") != digest or "data" not in entry:
        return None
    return entry


def _parse(raw: bytes) -> Any:
    import yaml

    # libyaml's safe loader when built in: the same documents, ~10x less CPU per process
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(raw.decode("utf-8"), Loader=loader)  # noqa: S506 - a safe loader
    except (UnicodeDecodeError, yaml.YAMLError) as err:
        raise PackagedYamlError(str(err)) from err


def precompile(root: Path = _ROOT) -> int:
    """Write the JSON entry of every file of :data:`PACKAGED` under ``root``; the number
    written (a file whose data a JSON round trip would change gets none)."""
    written = 0
    for relative in PACKAGED:
        path = root / relative
        raw = path.read_bytes()
        data = _parse(raw)
        try:
            text = json.dumps({"sha256": _digest(raw), "data": data}, ensure_ascii=False)
        except (TypeError, ValueError):
            continue  # a date or another value JSON has no form for
        if json.loads(text)["data"] != data:
            continue
        replace_atomically(_entry_path(path), text.encode("utf-8"))
        written += 1
    return written


if __name__ == "__main__":
    print(f"已预存 {precompile()} 个内置 YAML 文件的解析结果。")
