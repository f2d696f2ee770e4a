"""What every offline generator hands the provider: a production contract, in its wire form.

A generator builds its answer through the contract class the production call passes as
``output_model`` (``WriterDraft``, ``ExploreDraft``, ``ChapterExtraction``, the planning stages,
the detector report, the judge sheet), so a contract change breaks the generator at once instead
of surfacing as a repair round in some later run. The reply holds only the fields the generator
set, under their wire names: a default it left alone stays out, as a model may leave it out.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

# The label of what the generic generators (detector, judge) say: offline, not a model's work.
OFFLINE_NOTE = "【离线模式】本内容由离线提供方依据冻结输入确定性生成，不代表模型写作能力。"


def emit(contract: BaseModel) -> dict[str, Any]:
    """The JSON reply for ``contract``: wire names, only the fields that were set."""
    return contract.model_dump(mode="json", by_alias=True, exclude_unset=True)
