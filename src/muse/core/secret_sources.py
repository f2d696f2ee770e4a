"""Where Muse's secrets come from, read without the configuration model (start-up cost).

Every command must know every key before it prints anything (``core.redaction``), but only a
command that calls a model needs the validated configuration (``agents.config``, pydantic).
:func:`register_known_secrets` therefore reads the same two sources with the standard library
alone: every environment variable named ``*_API_KEY``, and from the configuration file each
``[providers.<name>]`` table's ``api_key`` and the variable its ``api_key_env`` names. A file
the configuration model would refuse (an unknown key, a wrong type) still has its keys
registered: registering too much is harmless, missing one is a leak.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from muse.core.redaction import register_secret

CONFIG_ENV = "MUSE_CONFIG"


def config_path() -> Path:
    """Where the configuration file is: ``MUSE_CONFIG``, else the platform's user config dir."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "muse" / "config.toml"


def secrets_in_config(data: Mapping[str, object]) -> tuple[list[str], list[str]]:
    """The ``api_key`` values and the ``api_key_env`` names of a parsed configuration file."""
    keys: list[str] = []
    names: list[str] = []
    providers = data.get("providers")
    if isinstance(providers, Mapping):
        for settings in providers.values():
            if not isinstance(settings, Mapping):
                continue
            key, name = settings.get("api_key"), settings.get("api_key_env")
            if isinstance(key, str):
                keys.append(key)
            if isinstance(name, str) and name:
                names.append(name)
    return keys, names


def register_known_secrets(path: Path | None = None) -> None:
    """Register every key Muse could be given: each ``*_API_KEY`` environment variable, and the
    configuration file's ``api_key`` values and ``api_key_env`` variables (an unreadable file
    adds nothing; the command that needs it reports it)."""
    path = path or config_path()
    data: Mapping[str, object] = {}
    if path.is_file():  # most start-ups have no file: then tomllib is not even imported
        import tomllib

        with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
    keys, names = secrets_in_config(data)
    for key in keys:
        register_secret(key)
    for name in {*names, *(n for n in os.environ if n.upper().endswith("_API_KEY"))}:
        register_secret(os.environ.get(name))
