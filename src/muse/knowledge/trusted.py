"""Building contract models from values that are already valid, without validating them again.

Pydantic validation costs about 2 µs per object; a whole book as of a chapter is hundreds of
thousands of objects. Two kinds of values may skip it: rows the database holds, which were
validated when written (``insert_card`` and ``rewrite_card`` validate the whole card), and
objects the as-of rules build from parts of already validated cards. Nothing else: input from an
author, a file or a model is always validated.

The instance is the one validation would give (same ``__dict__``, every field set), so equality,
dumps and hashes do not change; tests/knowledge/test_state_as_of_fast.py re-validates what the
fast paths build.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__
_FIELD_SETS: dict[type, set[str]] = {}


def trusted(cls: type[M], **values: Any) -> M:
    """``cls(**values)`` without validation. ``values`` must name every field, in order."""
    fields_set = _FIELD_SETS.get(cls)
    if fields_set is None:
        fields_set = _FIELD_SETS[cls] = set(cls.model_fields)
    if len(values) != len(fields_set):
        raise TypeError(f"{cls.__name__}: every field must be given ({sorted(fields_set)})")
    instance = _new(cls)
    _set(instance, "__dict__", values)
    # shared: a frozen model never changes it, and model_copy copies it first
    _set(instance, "__pydantic_fields_set__", fields_set)
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", None)
    return instance


def maker(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """:func:`trusted` for one class, for the hottest paths (hundreds of thousands of calls):
    ``make({field: value, …})`` with every field, in order; the dict becomes the instance's."""
    fields_set = set(cls.model_fields)
    size = len(fields_set)

    def make(values: dict[str, Any]) -> M:
        if len(values) != size:
            raise TypeError(f"{cls.__name__}: every field must be given ({sorted(fields_set)})")
        instance = _new(cls)
        _set(instance, "__dict__", values)
        _set(instance, "__pydantic_fields_set__", fields_set)
        _set(instance, "__pydantic_extra__", None)
        _set(instance, "__pydantic_private__", None)
        return instance

    return make
