"""Token estimate for Chinese text, used for every budget in the context.

Chinese tokenizers of the models Muse targets (DeepSeek, Qwen, Kimi, GLM) spend roughly 0.6–0.9
tokens per Han character and about one token per 3–4 other characters. The estimate counts one
token per Han character and one per four other non-space characters, rounded up: it errs on the
high side, so a context that fits the estimate fits the real budget.
"""

from __future__ import annotations

import math

from muse.core.text import count_han


def estimate_tokens(text: str) -> int:
    han = count_han(text)
    other = sum(map(len, text.split())) - han  # split() cuts exactly at str.isspace() characters
    return han + math.ceil(max(other, 0) / 4)
