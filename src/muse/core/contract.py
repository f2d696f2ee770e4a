"""The base class of every pydantic model in Muse (ARCHITECTURE.md principle 5).

``Contract``: strict (unknown fields fail), immutable, camelCase on the wire as in the spec's
field lists (``targetChapter``, ``candidateSha256``), snake_case in Python.

``UnaliasedContract`` is the same base for contracts whose fields are named exactly as they
travel, so they carry no alias: the shapes a model fills in (``ExploreDraft``,
``ChapterExtraction``, the detector report, the judge sheet: camelCase field names, every field
required for strict ``json_schema`` output), the planning stages (snake_case on the wire and in
the stored documents), the author's config file and the reports Muse stores as they are. No
package defines a base of its own; a model that differs in one more respect (the probe reply
keeps unknown fields) says so next to the class.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Contract(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,
    )

    def wire(self) -> dict[str, Any]:
        """The JSON-ready form with the spec's camelCase names."""
        return self.model_dump(mode="json", by_alias=True)


class UnaliasedContract(Contract):
    # Merged into the base's configuration: still strict and immutable, without aliases.
    model_config = ConfigDict(alias_generator=None)
