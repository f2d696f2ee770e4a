"""A command group that imports a command's module only when that command runs.

Why: importing every command module pulls in every domain (pydantic contracts, SQLAlchemy tables,
the vendor SDK), ~1.5 s CPU before ``muse --help`` can print a line. The top-level commands are
therefore listed in a table (:data:`muse.cli.main.COMMANDS`: name → loader, one-line help), and
:class:`LazyGroup` shows the table's help in ``muse --help`` and imports a loader's modules only
when one of its commands is invoked. A loader is a function that registers commands on a
``typer.Typer`` exactly as the modules' ``register`` functions always did; it runs once per
process. ``tests/cli/test_lazy_commands.py`` checks that the table and the real commands agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

Loader = Callable[[typer.Typer], None]


@dataclass(frozen=True)
class LazyCommand:
    loader: str  # key in the loaders mapping
    help: str  # the command's one-line help, as ``muse --help`` shows it


class _Unloaded(TyperCommand):
    """Stands for a command whose module is not imported yet (help listing, suggestions)."""


def _only(app: typer.Typer, name: str) -> typer.Typer:
    """``app`` reduced to the command or group ``name`` (Click objects are then built for that
    one only), or the whole ``app`` when it has no such entry under that name."""
    one = typer.Typer()
    one.registered_commands = [
        c
        for c in app.registered_commands
        if (c.name or (c.callback and typer.main.get_command_name(c.callback.__name__))) == name
    ]
    one.registered_groups = [g for g in app.registered_groups if g.name == name]
    if not one.registered_commands and not one.registered_groups:
        return app
    one.registered_callback = app.registered_callback
    return one


def lazy_group(
    commands: Mapping[str, LazyCommand],
    loaders: Mapping[str, Loader],
    base: type[TyperGroup] = TyperGroup,
    panel_of: Callable[[str], str | None] = lambda name: None,
) -> type:
    """A ``TyperGroup`` class (derived from ``base``) for ``typer.Typer(cls=...)`` serving
    ``commands`` lazily; ``panel_of`` names the help panel of each top-level command."""

    @cache
    def loaded(loader: str) -> typer.Typer:
        app = typer.Typer()
        loaders[loader](app)
        return app

    class LazyGroup(base):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._listing = False
            for name, entry in commands.items():
                self.commands.setdefault(
                    name,
                    _Unloaded(name=name, help=entry.help, rich_help_panel=panel_of(name)),
                )

        def get_command(self, ctx: Any, cmd_name: str) -> Any:
            found = self.commands.get(cmd_name)
            if isinstance(found, _Unloaded) and not self._listing:
                self._load(commands[cmd_name].loader, cmd_name)
                found = self.commands.get(cmd_name)
            return found

        def _load(self, loader: str, name: str) -> None:
            group = typer.main.get_group(_only(loaded(loader), name))
            for name, command in group.commands.items():
                if isinstance(self.commands.get(name), _Unloaded):
                    command.rich_help_panel = panel_of(name)  # type: ignore[attr-defined]
                    self.commands[name] = command

        def format_help(self, ctx: Any, formatter: Any) -> None:
            self._listing = True  # list the table's help without importing anything
            try:
                super().format_help(ctx, formatter)
            finally:
                self._listing = False

    return LazyGroup
