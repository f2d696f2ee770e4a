"""Typer commands, one module per noun. No business rules live here: commands call services.

The face of this package is the ``muse`` command itself (``muse.cli.main:main``, the entry point);
no package imports the CLI, so ``__all__`` is empty.
"""

__all__ = []
