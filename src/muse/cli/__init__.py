"""Typer commands, one module per noun. No business rules live here: commands call services.

The face of this package is the ``muse`` command itself (``muse.cli.main:main``, the entry point);
no package imports the CLI, so ``__all__`` is empty.

A process that runs a command takes the dataclass methods, annotations, SQLAlchemy's generated
functions and regular expressions that its modules compile at import from ``make install``'s
cache (:mod:`muse.core.compile_cache`): set up here, before the command's modules load.
"""

from muse.core import compile_cache

compile_cache.install()

__all__: list[str] = []
