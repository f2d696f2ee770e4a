"""The offline generators are one package, installed by the composition roots only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from muse import offline
from muse.agents.providers import offline as provider
from muse.offline import detector, explorer, extractor, judge, planner, writer

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("key", "generators"),
    [
        (("writer", "generate"), {writer.write_chapter}),
        (("writer", "explore"), {explorer.explore_reads}),
        (("extractor", "extract"), {extractor.extract_chapter}),
        (("planner", "draft"), {planner.generate}),
        (("detector", "check"), {detector.check}),
        (("judge", "score"), {judge.score}),
    ],
)
def test_each_role_has_its_generators(key, generators) -> None:
    offline.load()
    assert set(provider._builtin[key]) == generators
    # and the module SERVES names for the key is the one that registers them
    assert {g.__module__ for g in generators} == {f"muse.offline.{offline.SERVES[key]}"}


def _loaded_after(call: str) -> list[str]:
    """The generator modules a fresh process holds after ``call``."""
    code = (
        "import sys\n"
        "from muse import offline\n"
        f"{call}\n"
        "print(' '.join(m for m in offline.MODULES if f'muse.offline.{m}' in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("key", sorted(offline.SERVES))
def test_a_call_loads_only_the_generators_of_its_key(key) -> None:
    # the first offline call of a (role, task) imports that one module
    assert _loaded_after(f"offline.load{key!r}") == [offline.SERVES[key]]


def test_an_unknown_key_loads_every_generator() -> None:
    assert _loaded_after("offline.load('probe', 'nothing')") == list(offline.MODULES)


def test_loading_twice_registers_nothing_twice() -> None:
    offline.load()
    before = {k: list(v) for k, v in provider._builtin.items()}
    offline.load()
    assert provider._builtin == before


def test_without_a_composition_root_no_domain_registers_a_generator() -> None:
    # A fresh process that imports the whole pipeline but not muse.offline: nothing registered.
    code = (
        "import muse.flow.production, muse.planning.planner, muse.knowledge.extraction, "
        "muse.flow.exploration, muse.worker.builtin\n"
        "from muse.agents.providers import offline\n"
        "import sys\n"
        "print(sorted(offline._builtin), 'muse.offline' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[] False"
