"""RetrievalManifest: exactly what was read, with versions, offsets and hashes (spec 000 §5.3).

``manifestId`` is computed over the normalised source set only — no run ids, times or hosts — so
the same plan against the same index versions gives the same id in any process, on any backend.
"""

from __future__ import annotations

from muse.context.contracts import CardHit, ManifestSource, OmittedSource, RetrievalManifest
from muse.core.canonical import hash_value

_IDENTITY = (
    "kind",
    "sourceId",
    "sourceVersion",
    "chapter",
    "start",
    "end",
    "contentSha256",
    "trimmed",
)


def manifest_id(sources: list[ManifestSource]) -> str:
    rows = [{k: s.wire()[k] for k in _IDENTITY} for s in sources]
    rows.sort(key=lambda r: (r["kind"], r["sourceId"], r["start"] or 0))
    return hash_value(rows)


def build_manifest(
    plan_id: str,
    sources: list[ManifestSource],
    omitted: list[OmittedSource],
    hits: list[CardHit] | None = None,
) -> RetrievalManifest:
    return RetrievalManifest(
        manifest_id=manifest_id(sources),
        plan_id=plan_id,
        sources=tuple(sources),
        card_hits=tuple(hits or ()),
        omitted_sources=tuple(omitted),
    )
