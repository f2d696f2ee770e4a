"""The ``muse`` command. Each noun's commands live in their own module and are registered here."""

from __future__ import annotations

import sys

import typer

from muse.cli import candidate_facts, cards, context, index, plan, runs, works, writing
from muse.cli import decisions as decisions_cli
from muse.cli import evaluation as evaluation_cli
from muse.cli import revise as revise_cli
from muse.cli import worker as worker_cli
from muse.cli.config import config_app
from muse.cli.models import models_app
from muse.cli.output import print_error
from muse.core.errors import MuseError

app = typer.Typer(
    name="muse",
    help="Muse：长篇网文 AI 写作系统。上下文冻结可追溯，定稿权永远在作者手里。",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

works.register(app)
plan.register(app)
writing.register(app)
decisions_cli.register(app, writing.candidate_app)
candidate_facts.register(writing.candidate_app)
revise_cli.register(app)
context.register(app)
cards.register(app)
runs.register(app)
index.register(app)
worker_cli.register(app)
evaluation_cli.register(app, writing.candidate_app)
app.add_typer(models_app, name="models")
app.add_typer(config_app, name="config")


def main() -> None:
    try:
        app()
    except MuseError as err:
        print_error(err)
        sys.exit(1)
