"""``muse eval preregister SET.yaml``: validate, hash and store an evaluation set once.

A preregistered set is immutable: the database refuses any change of its row (trigger), and a
file whose content differs from a stored set of the same ``evaluationSetVersion`` is refused —
a changed file is a new version. Registering the identical file again is a no-op that returns
the stored set. Each sample gets its evaluation run (``eval_runs``, state ``preregistered``) and
its three random anonymous candidate labels here, before any model is called.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from sqlalchemy import Connection, Engine, or_, select

from muse.agents import check_model_allowed, load_roles
from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.core.ids import new_id
from muse.evaluation.contracts import (
    ARMS,
    EVAL_POLICY_VERSION,
    ROLES_IN_SET,
    EvaluationSet,
)
from muse.evaluation.tables import eval_runs, eval_sets
from muse.works import latest_chapter_number, resolve_work

MAX_FILE_BYTES = 2_000_000


@dataclass(frozen=True)
class Registered:
    set_id: str
    version: str
    sha256: str
    created: bool  # False: the identical set was already registered
    samples: int
    dry_run: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "setId": self.set_id,
            "evaluationSetVersion": self.version,
            "sha256": self.sha256,
            "created": self.created,
            "samples": self.samples,
            "dryRun": self.dry_run,
        }


def _problems(err: ValidationError) -> str:
    return "；".join(
        f"{'.'.join(str(p) for p in e['loc']) or '（根）'}：{e['msg']}" for e in err.errors()
    )


def parse_set(text: str, source: str = "评测集") -> EvaluationSet:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise InvalidInput(f"{source} 不是合法的 YAML：{err}") from None
    if not isinstance(data, dict):
        raise InvalidInput(
            f"{source} 的顶层必须是键值表（evaluationSetVersion、models、samples…）。"
        )
    try:
        return EvaluationSet.model_validate(data)
    except ValidationError as err:
        raise InvalidInput(f"{source} 不符合评测集合同：{_problems(err)}") from None


def read_set_file(path: Path) -> EvaluationSet:
    if not path.is_file():
        raise NotFound(f"找不到评测集文件 {path}。")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidInput(f"评测集文件 {path} 超过 {MAX_FILE_BYTES // 1_000_000} MB。")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"评测集文件 {path} 不是 UTF-8 文本。") from None
    return parse_set(text, f"评测集文件 {path.name}")


def _check_models(evaluation_set: EvaluationSet) -> None:
    catalog = load_roles()
    for role in ROLES_IN_SET:
        chosen = getattr(evaluation_set.models, role)
        check_model_allowed(catalog, role, chosen.provider, chosen.model)


def _resolve_samples(conn: Connection, evaluation_set: EvaluationSet) -> list[int]:
    work_ids = []
    for sample in evaluation_set.samples:
        try:
            work_id = resolve_work(conn, int(sample.work) if sample.work.isdigit() else sample.work)
        except NotFound:
            raise NotFound(f"样本 {sample.sampleId}：找不到作品「{sample.work}」。") from None
        latest = latest_chapter_number(conn, work_id) or 0
        if sample.targetChapter > latest:
            raise InvalidInput(
                f"样本 {sample.sampleId}：作品只有 {latest} 章正式正文，"
                f"回放目标第 {sample.targetChapter} 章必须是已有章节（它是标准答案）。"
            )
        work_ids.append(work_id)
    return work_ids


def anonymous_labels() -> dict[str, str]:
    """Arm → a random candidate label (distinct, carrying nothing about the arm)."""
    labels: set[str] = set()
    while len(labels) < len(ARMS):
        labels.add(f"候选-{secrets.token_hex(3)}")
    return dict(zip(ARMS, sorted(labels), strict=True))


def preregister(engine: Engine, evaluation_set: EvaluationSet) -> Registered:
    _check_models(evaluation_set)
    document = evaluation_set.model_dump(mode="json")
    digest = hash_value(document)
    with engine.begin() as conn:
        existing = conn.execute(
            select(eval_sets).where(eval_sets.c.version == evaluation_set.evaluationSetVersion)
        ).first()
        if existing is not None:
            if existing.sha256 != digest:
                raise InvalidInput(
                    f"评测集版本 {evaluation_set.evaluationSetVersion} 已预注册，且内容不同。",
                    hint="预注册的评测集不可修改：改过的文件请使用新的 evaluationSetVersion。",
                )
            return _registered(existing, evaluation_set, created=False)
        work_ids = _resolve_samples(conn, evaluation_set)
        set_id, now = new_id("evs"), utc_now()
        conn.execute(
            eval_sets.insert().values(
                id=set_id,
                version=evaluation_set.evaluationSetVersion,
                sha256=digest,
                document=document,
                dry_run=evaluation_set.dry_run,
                created_at=now,
            )
        )
        for sample, work_id in zip(evaluation_set.samples, work_ids, strict=True):
            conn.execute(
                eval_runs.insert().values(
                    id=new_id("evr"),
                    set_id=set_id,
                    sample_key=sample.sampleId,
                    work_id=work_id,
                    target_chapter=sample.targetChapter,
                    as_of=sample.as_of,
                    scene_class=sample.sceneClass,
                    quality_policy_version=EVAL_POLICY_VERSION,
                    labels=anonymous_labels(),
                    state="preregistered",
                    revision=0,
                    created_at=now,
                    updated_at=now,
                )
            )
        row = conn.execute(select(eval_sets).where(eval_sets.c.id == set_id)).one()
    return _registered(row, evaluation_set, created=True)


def _registered(row, evaluation_set: EvaluationSet, *, created: bool) -> Registered:
    return Registered(
        row.id, row.version, row.sha256, created, len(evaluation_set.samples), row.dry_run
    )


def load_set(conn: Connection, ref: str) -> tuple[str, EvaluationSet]:
    """The stored set by id or evaluationSetVersion, as preregistered."""
    row = conn.execute(
        select(eval_sets).where(or_(eval_sets.c.id == ref, eval_sets.c.version == ref))
    ).first()
    if row is None:
        raise NotFound(
            f"没有预注册的评测集「{ref}」。", hint="先运行 muse eval preregister SET.yaml。"
        )
    return row.id, EvaluationSet.model_validate(row.document)
