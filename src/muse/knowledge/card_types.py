"""The registry of card types (spec 001 §1A stage 2: 23 typed kinds of setting).

The registry is data (``card_types.yaml``, shipped in the package, versioned) so that an author
can read it and a new version can be reviewed as a diff. Field keys are English identifiers; each
field has a Chinese label, which is what the author writes in YAML and reads in messages.

Gate 1 (field coverage): a required field may be missing only as an explicit
「字段存疑：原因」 with a non-empty reason; recommended fields are reported, never blocking.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from muse.core.contract import UnaliasedContract
from muse.core.errors import InvalidInput
from muse.core.packaged_yaml import load_packaged
from muse.core.text import normalize_text
from muse.knowledge.contracts import CardField, FieldCoverage

DOUBT_MARKER = "字段存疑"


class FieldDef(UnaliasedContract):
    key: str
    label: str
    required: bool = False
    recommended: bool = False
    list: bool = False
    sealed: bool = False


class CardType(UnaliasedContract):
    key: str
    label: str
    description: str
    arc: bool = False
    fields: tuple[FieldDef, ...]

    def field(self, key_or_label: str) -> FieldDef | None:
        for f in self.fields:
            if key_or_label in (f.key, f.label):
                return f
        return None

    def label_of(self, key: str) -> str:
        found = self.field(key)
        return found.label if found else key


class RelationRules(UnaliasedContract):
    single: tuple[str, ...]
    exclusive: tuple[tuple[str, str], ...]

    def excludes(self, kind_a: str, kind_b: str) -> bool:
        return (kind_a, kind_b) in self.exclusive or (kind_b, kind_a) in self.exclusive


class Registry(UnaliasedContract):
    version: str
    types: tuple[CardType, ...]
    relations: RelationRules

    def get(self, key_or_label: str) -> CardType:
        for t in self.types:
            if key_or_label in (t.key, t.label):
                return t
        known = "、".join(f"{t.key}（{t.label}）" for t in self.types)
        raise InvalidInput(f"未知的卡片类型「{key_or_label}」。", hint=f"可用类型：{known}")


@cache
def registry() -> Registry:
    """The shipped registry, with the common fields prepended to every type."""
    raw = load_packaged(Path(__file__).with_name("card_types.yaml"))
    common = raw["common_fields"]
    types = [{**t, "fields": [*common, *t["fields"]]} for t in raw["types"]]
    return Registry.model_validate(
        {"version": raw["version"], "types": types, "relations": raw["relations"]}
    )


def card_type(key_or_label: str) -> CardType:
    return registry().get(key_or_label)


def types_version() -> str:
    return registry().version


def parse_doubt(value: object) -> str | None:
    """The reason of a 「字段存疑：原因」 marker, "" for a marker without reason, None otherwise."""
    if not isinstance(value, str):
        return None
    text = normalize_text(value).strip()
    if not text.startswith(DOUBT_MARKER):
        return None
    rest = text[len(DOUBT_MARKER) :]
    if rest[:1] in ("：", ":"):
        return rest[1:].strip()
    return "" if not rest.strip() else None


def check_fields(kind: CardType, fields: dict[str, CardField]) -> FieldCoverage:
    """Gate 1: which required / recommended fields are missing, doubted or unknown."""
    declared = {f.key for f in kind.fields}
    return FieldCoverage(
        missing_required=[f.key for f in kind.fields if f.required and f.key not in fields],
        missing_recommended=[f.key for f in kind.fields if f.recommended and f.key not in fields],
        doubted=[key for key, value in fields.items() if value.doubt is not None],
        unknown=[key for key in fields if key not in declared],
    )


def describe_missing(kind: CardType, coverage: FieldCoverage) -> list[str]:
    """Chinese messages for a coverage that fails gate 1, one per field."""
    messages = [
        f"缺少必填字段「{kind.label_of(key)}」（{key}）；确无依据时写「{DOUBT_MARKER}：原因」。"
        for key in coverage.missing_required
    ]
    allowed = "、".join(f.label for f in kind.fields)
    messages += [
        f"「{kind.label}」没有字段「{key}」；可用字段：{allowed}。" for key in coverage.unknown
    ]
    return messages
