"""The two-phase writer's explore and replay machinery (spec 001 §5), beside the context assembly.

The explore phase proposes reads; :func:`merge_reads` vets them into an ``ExplorationManifest``
after the retrieval plan's own reads (:func:`planned_reads`); :func:`replay` runs every read of
the manifest again, deterministically, through the read-only tools over the frozen ``AsOfView``;
and the freeze folds the replayed reads into the WriterContext (:func:`fold_replayed`, after
:func:`check_replayed`). The rest of ``context`` reaches this only through this face
(``__all__`` below); the package face re-exports what other packages use. The modules behind it:

    contracts         ExploreDraft (model-facing), ExplorationManifest, ReplayedRead/-Material
    plan_reads        the plan as tool reads; vetting explored reads; checking a replay
    replaying         the deterministic replay of a manifest
    replayed_sources  folding replayed reads into the frozen context's sources
    tool_reader       the read-only tools' reader over the real AsOfView
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.context.explore.contracts import (
        EXPLORE_INPUT_VERSION,
        ExplorationManifest,
        ExploreDraft,
        ExploreDraftRead,
        ReplayedMaterial,
        ReplayedRead,
    )
    from muse.context.explore.plan_reads import (
        check_replayed,
        explore_whitelist,
        from_draft,
        merge_reads,
        planned_reads,
    )
    from muse.context.explore.replayed_sources import fold_replayed
    from muse.context.explore.replaying import replay, replay_bytes
    from muse.context.explore.tool_reader import AsOfToolReader

__all__ = [
    "EXPLORE_INPUT_VERSION",
    "AsOfToolReader",
    "ExplorationManifest",
    "ExploreDraft",
    "ExploreDraftRead",
    "ReplayedMaterial",
    "ReplayedRead",
    "check_replayed",
    "explore_whitelist",
    "fold_replayed",
    "from_draft",
    "merge_reads",
    "planned_reads",
    "replay",
    "replay_bytes",
]

_FACE: dict[str, tuple[str, ...]] = {
    "contracts": (
        "EXPLORE_INPUT_VERSION",
        "ExplorationManifest",
        "ExploreDraft",
        "ExploreDraftRead",
        "ReplayedMaterial",
        "ReplayedRead",
    ),
    "plan_reads": (
        "check_replayed",
        "explore_whitelist",
        "from_draft",
        "merge_reads",
        "planned_reads",
    ),
    "replayed_sources": ("fold_replayed",),
    "replaying": ("replay", "replay_bytes"),
    "tool_reader": ("AsOfToolReader",),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
