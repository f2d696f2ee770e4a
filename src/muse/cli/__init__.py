"""Typer commands, one module per noun. No business rules live here: commands call services."""
