"""``scrub`` drops the empty secrets once, then walks: the same value as filtering at every node."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from muse.agents.receipts import scrub
from muse.core.redaction import REDACTED


def _per_node(value: Any, secrets: tuple[str, ...]) -> Any:
    """The walk as it was: the secrets filtered again at every node."""
    secrets = tuple(s for s in secrets if s)
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_per_node(k, secrets): _per_node(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_per_node(v, secrets) for v in value]
    return value


_TEXT = st.lists(st.sampled_from(["a", "林", "\x00", "sk-secret-1", "key", ""]), max_size=6).map(
    "".join
)
_VALUE = st.recursive(
    st.one_of(_TEXT, st.integers(), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.tuples(inner), st.dictionaries(_TEXT, inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(value=_VALUE, secrets=st.lists(st.sampled_from(["", "sk-secret-1", "key"]), max_size=3))
def test_scrub_is_the_per_node_walk(value, secrets):
    assert scrub(value, tuple(secrets)) == _per_node(value, tuple(secrets))
