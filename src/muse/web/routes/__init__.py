"""The workbench pages, one module per noun; ``MODULES`` is what ``create_app`` mounts."""

from muse.web.routes import (
    candidates,
    cards,
    chapters,
    contexts,
    decisions,
    imports,
    models,
    plan,
    queues,
    records,
    runs,
    works,
    writing,
)

MODULES = (
    imports,
    works,
    chapters,
    cards,
    candidates,
    decisions,
    contexts,
    runs,
    plan,
    models,
    queues,
    writing,
    records,
)
