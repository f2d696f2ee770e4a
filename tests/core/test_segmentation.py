"""One jieba per process: the index tokenizer and the entity tagger share it, nobody mutates it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from muse.core.segmentation import shared_jieba

SRC = Path(__file__).resolve().parents[2] / "src" / "muse"


def test_tokenizer_and_tagger_use_the_one_instance():
    from muse.context.search.tokenizer import Tokenizer

    assert Tokenizer(["萧炎"])._jieba is shared_jieba()
    assert Tokenizer(())._jieba is shared_jieba()


def test_tokenising_and_tagging_build_no_further_jieba():
    """Beyond the instance rjieba's import builds, tokenising, tagging and discovering the
    names of an imported book build none."""
    code = (
        "import rjieba\n"
        "built = []\n"
        "original = rjieba.Jieba\n"
        "rjieba.Jieba = lambda: built.append(1) or original()\n"
        "from muse.context.search.tokenizer import Tokenizer\n"
        "from muse.quality.entities import tagged_entities\n"
        "Tokenizer(['萧炎']).tokens('萧炎走进青石镇。')\n"
        "tagged_entities('林远走进青石镇。')\n"
        "from muse.knowledge.discovery import discover\n"
        "discover([(1, '林远走进青石镇。林远说道：好。' * 40), (2, '萧炎说道：林远来了。' * 30)])\n"
        "print(len(built))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_no_code_mutates_the_shared_dictionary():
    mutators = re.compile(r"jieba\w*(\(\))?\.(add_word|suggest_freq|clear)\(")
    offenders = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if "jieba" in (text := p.read_text(encoding="utf-8")) and mutators.search(text)
    ]
    assert offenders == []


def test_importing_the_tokenizer_does_not_load_rjieba():
    code = "import sys, muse.context.search.tokenizer, muse.quality.entities; print('rjieba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
