"""The options every command shares (``--work``, ``--json``, ``--provider``, ``--model``).

Typer only: a command module may take these without importing the database layer
(:mod:`muse.cli.listing` answers ``muse chapters`` without SQLAlchemy).
"""

from __future__ import annotations

import typer

JsonOption = typer.Option(False, "--json", help="以 JSON 输出，便于脚本处理。")
WorkOption = typer.Option(None, "--work", "-w", help="作品 ID 或书名；只有一部作品时可省略。")
ProviderOption = typer.Option(
    None,
    "--provider",
    "-p",
    help="模型提供方，如 deepseek、ollama；省略时用 muse models use 的选择",
)
ModelOption = typer.Option(
    None, "--model", "-m", help="完整的模型 ID；与 --provider 同时给出，优先于作品的模型选择"
)
