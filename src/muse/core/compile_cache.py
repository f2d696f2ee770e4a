"""What Python compiles while muse's modules load, kept from one process to the next.

Loading the modules of ``muse write`` defines ~170 dataclasses and ~130 pydantic models and
compiles ~150 regular expressions, and Python 3.11 redoes all of it in every process.
``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__`` … as source text and
compiles it (``exec``, six times for a frozen class); pydantic evaluates each string annotation
through ``typing.ForwardRef``, which compiles it (~1,700 times); ``re.compile`` parses a pattern
and generates its program in pure Python. SQLAlchemy writes functions as text too (the wrapper
of each ``@util.decorator``, its proxies and dispatchers: ~120 when it loads) and compiles them
in ``sqlalchemy.util.langhelpers``.
Together that is about a fifth of the whole ``muse write`` process (~850 M instructions).
``make install`` records what they compile while every muse module is imported (``python -m
muse.core.compile_cache``) and writes it to ``muse/__compilecache__/<interpreter>.marshal``; a
process started by the ``muse`` command (:func:`install`, from ``muse.cli``) takes an entry
instead of compiling again.

Never stale and never required:

* an entry's key is the whole input of the compiler: the exact source text of the function or
  the annotation and how it is compiled (mode, file name and ``__future__`` flags: ``exec`` or
  ``eval`` of a code object compiled from that text, with the same namespaces, is what ``exec``
  or ``eval`` of the text does; neither ``dataclasses`` nor ``typing`` has a ``__future__``
  import to inherit, ``langhelpers`` has ``annotations``, and its texts are compiled with it), or
  the pattern and its flags. An edited class, annotation or pattern has another key, so it is compiled afresh;
* the file is read only when its header names this very interpreter (``sys.version``, the
  regular-expression engine's ``MAGIC`` and the optimisation level); a missing, unreadable or
  foreign file only means compiling as before;
* ``re.DEBUG`` patterns are never taken from it (compiling them prints).

Python 3.13+ writes a dataclass's methods in one ``exec``; the cache still serves it the same way.
"""

from __future__ import annotations
import __future__

import importlib.machinery
import marshal
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from re import _compiler as _regex_compiler  # type: ignore[attr-defined]  # the pure-Python compiler
from typing import Any

_PACKAGE = Path(__file__).resolve().parents[1]  # the muse package
CACHE_DIR = "__compilecache__"

# the compiler as Python left it, restored by uninstall() and after recording
_COMPILE_PATTERN = _regex_compiler.compile
_SRE = _regex_compiler._sre


# the module of SQLAlchemy that compiles the functions it writes as text, and the ``__future__``
# flag it compiles them with (its own ``from __future__ import annotations``, which they inherit)
GENERATED_BY = "sqlalchemy.util.langhelpers"
_ANNOTATIONS = __future__.annotations.compiler_flag

Key = tuple[str, str, int, str]  # (mode, file name, __future__ flags, source text)


def cache_file(package: Path = _PACKAGE) -> Path:
    return package / CACHE_DIR / f"{sys.implementation.cache_tag}.marshal"


def _header() -> tuple[str, int, int]:
    return (sys.version, _SRE.MAGIC, sys.flags.optimize)


class _Cache:
    """The entries of one cache file, read on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._code: dict[Key, bytes] | None = None
        self._patterns: dict[tuple[str | bytes, int], bytes] = {}
        self.hits = 0

    def _load(self) -> None:
        self._code = {}
        try:
            header, code, patterns = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return
        if header != _header():
            return
        self._code, self._patterns = code, patterns

    def code(self, key: Key) -> Any:
        if self._code is None:
            self._load()
        assert self._code is not None
        return self._take(self._code.get(key))

    def pattern(self, key: tuple[str | bytes, int]) -> tuple[Any, ...] | None:
        if self._code is None:
            self._load()
        entry: tuple[Any, ...] | None = self._take(self._patterns.get(key))
        return entry

    def _take(self, entry: bytes | None) -> Any:
        if entry is None:
            return None
        try:
            value = marshal.loads(entry)
        except (EOFError, ValueError, TypeError):  # a damaged entry: compiled afresh
            return None
        self.hits += 1
        return value


_installed: _Cache | None = None
_recording = False  # ``make install`` is recording: nothing is served


def install(path: Path | None = None) -> None:
    """Serve dataclass methods, annotations and regular expressions from the cache file (once
    per process)."""
    global _installed
    if _installed is not None or _recording:
        return
    cache = _Cache(path or cache_file())
    _installed = cache
    _hook(_TextHooks(cache.code, _keep_nothing), _serving_compile(cache), _SRE)


def installed() -> _Cache | None:
    return _installed


def uninstall() -> None:
    """Undo :func:`install` (tests)."""
    global _installed
    if _installed is not None:
        _unhook()
        _installed = None


def _hook(
    hooks: _TextHooks,
    compile_pattern: Callable[..., Any],
    sre: Any,
) -> None:
    """Put the hooks in place; each shadows the builtin in that module alone (``langhelpers``
    as soon as it loads, before its body runs)."""
    import dataclasses
    import typing

    dataclasses.exec = hooks.exec_in(0)  # type: ignore[attr-defined]
    # the call ForwardRef makes: compile(text, "<string>", "eval")
    typing.compile = hooks.compile_in(0, "eval", "<string>")  # type: ignore[attr-defined]
    # the call exec_code_in_env makes: compile(text, filename, "exec")
    generated = {
        "exec": hooks.exec_in(_ANNOTATIONS),
        "compile": hooks.compile_in(_ANNOTATIONS, "exec"),
    }
    _shadow_on_load(GENERATED_BY, generated)
    _regex_compiler.compile = compile_pattern
    _regex_compiler._sre = sre


def _unhook() -> None:
    import dataclasses
    import typing

    del dataclasses.exec  # type: ignore[attr-defined]
    del typing.compile  # type: ignore[attr-defined]
    _shadow_on_load(GENERATED_BY, {})
    _regex_compiler.compile = _COMPILE_PATTERN
    _regex_compiler._sre = _SRE


class _OnLoad:
    """A meta path finder that gives one module some globals before its body runs."""

    def __init__(self, name: str, values: dict[str, Any]) -> None:
        self.name, self.values = name, values

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Seeding(spec.loader, self.values)  # type: ignore[assignment]
        return spec


class _Seeding:
    """A module's loader that puts ``values`` in the module's globals first."""

    def __init__(self, loader: Any, values: dict[str, Any]) -> None:
        self._loader, self._values = loader, values

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        vars(module).update(self._values)
        self._loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_code …: the loader's own
        return getattr(self._loader, name)


def _shadow_on_load(name: str, values: dict[str, Any]) -> None:
    """Give module ``name`` the globals ``values``: now if it is loaded, else when it loads.
    Empty ``values``: take back what an earlier call gave."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _OnLoad) or f.name != name]
    module = sys.modules.get(name)
    if module is None:
        if values:
            sys.meta_path.insert(0, _OnLoad(name, values))
        return
    for key in ("exec", "compile"):
        if getattr(vars(module).get(key), "__module__", None) == __name__:
            del vars(module)[key]
    vars(module).update(values)


def _keep_nothing(key: Key, code: Any) -> None:
    pass


class _TextHooks:
    """``exec`` for ``dataclasses``, ``compile`` for ``typing`` (whose ``ForwardRef`` compiles an
    annotation's text: ``compile(text, "<string>", "eval")``) and both for ``langhelpers``. Each
    takes the code of a text from ``lookup(key)``, or compiles it and hands it to ``keep``; any
    other call compiles as the builtin would there.

    A text is compiled as in its module: ``exec`` or ``compile`` of the text here would inherit
    this module's ``__future__`` import, so every compile says its flags (none for
    ``dataclasses`` and ``typing``, whose annotations of a dataclass would else become strings;
    ``annotations`` for ``langhelpers``, which has it)."""

    def __init__(self, lookup: Callable[[Key], Any], keep: Callable[[Key, Any], None]) -> None:
        self._lookup, self._keep = lookup, keep

    def code_of(self, mode: str, filename: str, flags: int, text: str) -> Any:
        key = (mode, filename, flags, text)
        code = self._lookup(key)
        if code is None:
            code = compile(text, filename, mode, flags, dont_inherit=True)
            self._keep(key, code)
        return code

    def exec_in(self, module_flags: int) -> Callable[..., None]:
        """``exec`` as a module with these ``__future__`` flags calls it: a text is served."""

        def hooked_exec(source: Any, globals: Any = None, locals: Any = None) -> None:  # noqa: A002
            if isinstance(source, str):
                source = self.code_of("exec", "<string>", module_flags, source)
            exec(source, globals, locals)

        return hooked_exec

    def compile_in(
        self, module_flags: int, served_mode: str, served_file: str | None = None
    ) -> Callable[..., Any]:
        """``compile`` as a module with these ``__future__`` flags calls it: a plain call (no
        flags of its own) of ``served_mode``, of the file ``served_file`` if one is named, is
        served; any other compiles as the builtin would there."""

        def hooked_compile(
            source: Any,
            filename: Any,
            mode: str,
            flags: int = 0,
            dont_inherit: bool = False,
            **kw: Any,
        ) -> Any:
            plain = not (flags or dont_inherit or kw) and mode == served_mode
            named = isinstance(filename, str) and served_file in (None, filename)
            if plain and named and isinstance(source, str):
                return self.code_of(mode, filename, module_flags, source)
            inherited = 0 if dont_inherit else module_flags
            return compile(source, filename, mode, flags | inherited, dont_inherit=True, **kw)

        return hooked_compile


def _serving_compile(cache: _Cache) -> Callable[..., Any]:
    def cached_compile(p: Any, flags: int = 0) -> Any:
        if isinstance(p, str | bytes) and not flags & re.DEBUG:
            entry = cache.pattern((p, int(flags)))
            if entry is not None:
                final_flags, code, groups, groupindex, indexgroup = entry
                return _SRE.compile(p, final_flags, code, groups, dict(groupindex), indexgroup)
        return _COMPILE_PATTERN(p, flags)

    return cached_compile


# -- recording (``make install``) ---------------------------------------------------------------


class Recorder:
    """Collects what dataclasses, ``ForwardRef`` and the regex compiler compile while active."""

    def __init__(self) -> None:
        self.code: dict[Key, Any] = {}
        self.patterns: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}

    def __enter__(self) -> Recorder:
        global _recording
        if _installed is not None or _recording:
            raise RuntimeError("compile cache: record in a process that does not serve from it")
        _recording = True

        def keep(key: Key, code: Any) -> None:
            self.code[key] = code

        last: list[tuple[Any, ...]] = []

        class _RecordingSre:
            """``_sre`` for the regex compiler: notes the program it hands over."""

            def __getattr__(self, name: str) -> Any:
                return getattr(_SRE, name)

            @staticmethod
            def compile(*args: Any) -> Any:
                last.append(args)
                return _SRE.compile(*args)

        def recording_compile(p: Any, flags: int = 0) -> Any:
            last.clear()
            result = _COMPILE_PATTERN(p, flags)
            # one program handed over, in the six arguments this interpreter's compiler passes
            if (
                isinstance(p, str | bytes)
                and not flags & re.DEBUG
                and [len(a) for a in last] == [6]
            ):
                _, final_flags, code, groups, groupindex, indexgroup = last[0]
                self.patterns[(p, int(flags))] = (  # the opcodes are int subclasses
                    int(final_flags),
                    [int(c) for c in code],
                    int(groups),
                    {name: int(i) for name, i in groupindex.items()},
                    tuple(indexgroup),
                )
            return result

        _hook(_TextHooks(lambda key: None, keep), recording_compile, _RecordingSre())
        re.purge()
        return self

    def __exit__(self, *exc: object) -> None:
        global _recording
        _recording = False
        _unhook()


def _modules() -> Iterator[str]:
    import pkgutil

    yield "muse"
    for info in pkgutil.walk_packages([str(_PACKAGE)], "muse."):
        # alembic's scripts run only under alembic; ``__main__`` modules run when imported
        if ".migrations" not in info.name and not info.name.endswith("__main__"):
            yield info.name


def build(path: Path | None = None) -> tuple[int, int]:
    """Import every muse module (in a fresh process) while recording; write the cache file.
    Returns the numbers of compiled texts and of patterns written."""
    import importlib

    with Recorder() as recorder:
        for name in _modules():
            importlib.import_module(name)
    return write(recorder, path or cache_file())


def write(recorder: Recorder, target: Path) -> tuple[int, int]:
    """Write what ``recorder`` collected to ``target``; the numbers of texts and patterns."""
    from muse.core.files import replace_atomically

    # each entry marshalled on its own: a process unmarshals only the entries it takes
    code = {key: marshal.dumps(compiled) for key, compiled in recorder.code.items()}
    patterns = {key: marshal.dumps(entry) for key, entry in recorder.patterns.items()}
    replace_atomically(target, marshal.dumps((_header(), code, patterns)))
    target.chmod(0o644)
    return len(code), len(patterns)


def main() -> None:
    # ``python -m`` runs this file as ``__main__``: record with the module the package imports
    # (whose ``install`` sees the recording), not with this copy of it
    from muse.core import compile_cache

    texts, patterns = compile_cache.build()
    print(f"已预编译 {texts} 段数据类方法与类型注解、{patterns} 个正则表达式。")


if __name__ == "__main__":
    main()
