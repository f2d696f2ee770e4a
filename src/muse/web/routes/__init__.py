"""The workbench pages, one module per noun; ``MODULES`` is what ``create_app`` mounts."""

from muse.web.routes import (
    candidates,
    cards,
    chapters,
    contexts,
    decisions,
    evaluation,
    imports,
    library,
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
    library,
    evaluation,
    queues,
    writing,
    records,
)
