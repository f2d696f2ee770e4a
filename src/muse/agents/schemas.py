"""The JSON schema of a pydantic model, generated once per process.

``model_json_schema()`` rebuilds the schema on every call (~5-10 ms for an output contract), and
one chapter asks for the same few schemas a dozen times (prompt, response format, offline seed,
fallback instance). The cache holds the schema; every caller gets its own deep copy, so no
caller can change what another sees.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import BaseModel


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, computed once per model class."""
    return copy.deepcopy(_schema(model))


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()
