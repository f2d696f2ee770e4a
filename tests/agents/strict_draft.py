"""A small strict output contract for the tests of the dispatch machinery.

Dispatch, structured output, repair and receipts are tested on a writer-like draft whose every
field is required (so the stub server sees ``strict: true`` json_schema output) and whose shape
the tests can write by hand. It is a test double of "some strict contract", not a second writer
contract: the production writer/generate contract is ``muse.context.output_contracts.WriterDraft``
(and ``tests/agents/role_outputs.py`` runs every (role, task) on its production contract).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from muse.core.contract import UnaliasedContract


class DraftParagraph(UnaliasedContract):
    text: str = Field(min_length=1)


class DeclaredSetting(UnaliasedContract):
    kind: Literal["place", "ability", "organization", "identity", "record", "relation", "other"]
    name: str
    statement: str = Field(description="新设定的内容，一句话")
    quote: str = Field(description="正文中首次写到它的原句，逐字摘录")


class StrictDraft(UnaliasedContract):
    paragraphs: list[DraftParagraph] = Field(min_length=1)
    newSettingDeclarations: list[DeclaredSetting]
