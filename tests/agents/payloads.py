"""What the agents tests send and expect: the stub's key, fast retries, a writer input and draft."""

from __future__ import annotations

from muse.agents.structured import RetryPolicy
from tests.support.stub_server import STUB_SECRET

SECRET = STUB_SECRET
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
DRAFT = {"paragraphs": [{"text": "他推开门，雨声扑面而来。"}], "newSettingDeclarations": []}
WRITER_INPUT = {
    "targetChapter": 4,
    "asOf": 3,
    "fineOutline": {"hardEvents": ["林默在雨夜推开旧宅的门"]},
}
