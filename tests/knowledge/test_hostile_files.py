"""Hostile card and plan files (issue 19 §6): alias bombs are refused before anything walks them,
files are size-capped, and card files are decoded like book files (GB18030, UTF-16, binary
refused with the byte offset) — every refusal a Chinese message, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from muse.core.errors import InvalidInput
from muse.core.yaml_safe import MAX_EXPANDED_NODES, safe_load
from muse.knowledge.card_import import import_cards_yaml
from muse.knowledge.drafts import list_drafts
from muse.planning.yaml_io import load_plan_file
from tests.knowledge.test_cli import as_json, muse  # noqa: F401 - the fixture
from tests.knowledge.test_yaml_io import doc_example


def bomb(levels: int = 7, width: int = 9) -> str:
    """Nested aliases: ``width ** levels`` strings once expanded, a few hundred bytes written."""
    lines = ["l0: &l0 [" + ", ".join(['"哈哈"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def card_bomb() -> str:
    return bomb() + ("卡片:\n  - 类型: 人物\n    名称: 孙悟空\n    字段: {身份: 石猴, 简介: *l6}\n")


def test_an_alias_bomb_is_refused_before_it_expands():
    assert MAX_EXPANDED_NODES < 9**7
    with pytest.raises(yaml.YAMLError) as caught:
        safe_load(bomb())
    assert "疑似 YAML 炸弹" in str(caught.value)
    assert safe_load(bomb(levels=3)) is not None  # 729 nodes: ordinary anchors still work
    many = "a: &a x\nb: [" + ", ".join(["*a"] * 1_001) + "]\n"
    with pytest.raises(yaml.YAMLError, match="别名"):
        safe_load(many)


def test_a_card_file_bomb_is_a_located_problem_and_writes_nothing(conn, work):
    with pytest.raises(InvalidInput) as caught:
        import_cards_yaml(conn, work, card_bomb(), filename="bomb.yaml")
    assert "YAML 炸弹" in str(caught.value)
    assert list_drafts(conn, work) == []


def test_a_plan_file_bomb_is_refused(tmp_path: Path):
    path = tmp_path / "plan.yaml"
    path.write_text(bomb() + "title: *l6\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="YAML 炸弹"):
        load_plan_file(path)


def test_cards_import_decodes_gb18030_like_a_book(muse, tmp_path: Path):  # noqa: F811
    path = tmp_path / "cards-gbk.yaml"
    path.write_bytes(doc_example().encode("gb18030"))
    imported = as_json(muse("cards", "import", str(path), "--json"))
    assert {o["status"] for o in imported["outcomes"]} == {"new"}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (bytes(range(256)) * 4, "字节"),
        (b"\xff\xfe\x00\xd8", "UTF-16"),
    ],
)
def test_cards_import_of_a_binary_file_is_a_chinese_refusal(
    muse,  # noqa: F811
    tmp_path: Path,
    content,
    expected,
):
    path = tmp_path / "cards.bin"
    path.write_bytes(content)
    result = muse("cards", "import", str(path), code=1)
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "错误" in result.output and expected in result.output


def test_cards_import_of_a_file_over_the_cap_is_refused(muse, tmp_path: Path):  # noqa: F811
    path = tmp_path / "big.yaml"
    path.write_bytes(b"# " + b"x" * (9 * 1024 * 1024) + b"\n")
    result = muse("cards", "import", str(path), code=1)
    assert isinstance(result.exception, SystemExit) and "超过大小上限 8 MB" in result.output
