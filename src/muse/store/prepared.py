"""Statements built once, with named parameters, that a resident process compiles before use.

SQLAlchemy compiles a statement on its first execution per engine (~0.2-1.5 ms here, growing
with its columns) and keeps the result in the engine's cache under the statement's cache key.
A chapter write runs ~50 distinct statements, so the first write of a process pays ~25 ms of
compilation that every later one skips. A statement built inline also costs its construction
and its cache key on every execution.

A :class:`Prepared` statement is built once, at import, with ``bindparam`` placeholders, and
executed with its parameters by name: no construction, and its cache key is computed once.
Every one of them is registered, so that :func:`precompile` (``flow.warm_up(engine)``, what
``muse serve`` runs before its first request) compiles them all into an engine's cache ahead of
time; the first chapter then finds them compiled, as the later ones do.

Precompiling goes through SQLAlchemy's own caching compile (``_compile_w_cache``: the call an
execution makes, with the same cache key: the dialect, the statement's key, the parameter names
in sorted order, no schema translation, a single execution). It is SQLAlchemy's internal API: a
release that changes it makes :func:`precompile` compile nothing (reported as 0), never a wrong
statement, and the statements compile on first use as any other.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from sqlalchemy import Connection, Engine, Executable
from sqlalchemy.sql import compiler

_REGISTRY: list[Prepared] = []


class Prepared:
    """A statement executed with its parameters by name: the names of its ``bindparam``
    placeholders, or for an INSERT, whose values are the columns it sets, ``keys``. ``many``:
    also executed with several rows at once (``run_many``), a form compiled on its own."""

    __slots__ = ("_keys", "many", "statement")

    def __init__(
        self, statement: Executable, keys: tuple[str, ...] | None = None, *, many: bool = False
    ) -> None:
        self.statement = statement
        self._keys = None if keys is None else tuple(sorted(keys))
        self.many = many
        _REGISTRY.append(self)

    @property
    def keys(self) -> tuple[str, ...]:
        """The parameter names an execution passes, sorted (part of the compiled cache's key).
        Found when first asked (by :func:`precompile`), not at import: the placeholders without
        a value, among the bound parameters of the statement's cache key."""
        if self._keys is None:
            key = self.statement._generate_cache_key()  # type: ignore[attr-defined]
            names = {b.key for b in key.bindparams if b.value is None and b.callable is None}
            self._keys = tuple(sorted(names))
        return self._keys

    def run(self, conn: Connection, **params: Any) -> Any:
        """The statement's result (``conn.execute``): its rows' shape is the statement's."""
        return conn.execute(self.statement, params)

    def run_many(self, conn: Connection, rows: list[dict[str, Any]]) -> Any:
        """The statement executed once per row (one row: as :meth:`run`)."""
        return conn.execute(self.statement, rows)


def registered() -> tuple[Prepared, ...]:
    return tuple(_REGISTRY)


def precompile(engine: Engine, transform: Callable[[Executable], Executable] = lambda s: s) -> int:
    """Compile every registered statement, as ``transform`` makes it (the production zone's
    rewrite of a SELECT, as an execution would), into ``engine``'s cache; how many were
    compiled (0 when this SQLAlchemy compiles differently)."""
    cache: MutableMapping[Any, Any] | None = getattr(engine, "_compiled_cache", None)
    if cache is None:
        return 0
    # The dialect learns the server (its version, what it supports) on the engine's first
    # connection, and compiles by it: compiled before, a statement could differ from what its
    # execution would compile, and the cache would keep that.
    with engine.connect():
        pass
    done = 0
    for prepared in _REGISTRY:
        statement = transform(prepared.statement)
        for many in (False, True) if prepared.many else (False,):
            try:
                statement._compile_w_cache(
                    engine.dialect,
                    compiled_cache=cache,
                    column_keys=list(prepared.keys),
                    for_executemany=many,
                    schema_translate_map=None,
                    linting=engine.dialect.compiler_linting | compiler.WARN_LINTING,
                )
            except (AttributeError, TypeError):  # another SQLAlchemy: compiled on first use
                return done
        done += 1
    return done
