"""The JSON schema of a pydantic model, generated once per process.

``model_json_schema()`` rebuilds the schema on every call (~5-10 ms for an output contract), and
one chapter asks for the same few schemas a dozen times (prompt, response format, offline seed,
fallback instance). The cache holds the schema; every caller gets its own deep copy, so no
caller can change what another sees. The copy is a pickle round trip: for JSON data (dicts,
lists, strings, numbers, booleans, None) the same deep copy ``copy.deepcopy`` makes, shared
parts still shared, in a quarter of the time.
"""

from __future__ import annotations

import pickle
from functools import cache
from typing import Any

from pydantic import BaseModel


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, computed once per model class."""
    copied: dict[str, Any] = pickle.loads(  # noqa: S301 - our own bytes, just made
        pickle.dumps(_schema(model), pickle.HIGHEST_PROTOCOL)
    )
    return copied


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()
