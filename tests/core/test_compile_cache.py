"""The compile cache serves what the compiler would produce, and nothing when it cannot be sure.

Each test runs with the process's own cache (installed by ``import muse.cli``) set aside and
put back afterwards.
"""

from __future__ import annotations

import dataclasses
import marshal
import re
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from muse.core import compile_cache

CLASS = '''
import dataclasses

@dataclasses.dataclass(frozen=True)
class Point:
    """A point."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
'''
PATTERN = r"(?P<word>[\u4e00-\u9fff]{2,4})(?:道|说)[:：]?"


@pytest.fixture
def fresh() -> Iterator[None]:
    """No cache served during the test; the process's cache is back afterwards."""
    before = compile_cache.installed()
    compile_cache.uninstall()
    re.purge()
    yield
    compile_cache.uninstall()
    re.purge()
    if before is not None:
        compile_cache.install(before.path)


def _define(source: str = CLASS) -> type:
    namespace: dict[str, object] = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace["Point"]  # type: ignore[return-value]


def _recorded(tmp_path: Path, source: str = CLASS, pattern: str = PATTERN) -> Path:
    recorder = compile_cache.Recorder()
    with recorder:
        _define(source)
        re.compile(pattern)
        typing.get_type_hints(Hinted, globals())
    re.purge()
    target = tmp_path / "cache.marshal"
    texts, patterns = compile_cache.write(recorder, target)
    assert texts >= 6 and patterns == 1  # __init__, __repr__, __eq__, __hash__, …, the hints
    return target


class Hinted:
    """String annotations, as every module with ``from __future__ import annotations`` has."""

    name: str
    tags: dict[str, list[int]]
    parent: Hinted | None


def test_a_served_dataclass_behaves_as_a_compiled_one(fresh: None, tmp_path: Path) -> None:
    compiled = _define()
    compile_cache.install(_recorded(tmp_path))
    served = _define()
    cache = compile_cache.installed()
    assert cache is not None and cache.hits >= 4
    a, b = served(1, 2, ("甲",)), compiled(1, 2, ("甲",))
    assert repr(a).replace("Point", "") == repr(b).replace("Point", "")
    assert a == served(1, 2, ("甲",)) and a != served(1, 3)
    assert served.__init__.__annotations__ == compiled.__init__.__annotations__
    assert hash(a) == hash(served(1, 2, ("甲",)))
    assert [f.name for f in dataclasses.fields(served)] == ["x", "y", "tags"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        served()


def test_a_served_pattern_is_the_compiled_pattern(fresh: None, tmp_path: Path) -> None:
    compiled = re.compile(PATTERN)
    path = _recorded(tmp_path)
    re.purge()
    compile_cache.install(path)
    served = re.compile(PATTERN)
    cache = compile_cache.installed()
    assert cache is not None and cache.hits == 1
    assert served is not compiled and served == compiled  # same pattern, flags and program
    assert served.groupindex == {"word": 1}
    assert served.search("萧炎道：走").group("word") == "萧炎"


def test_a_served_annotation_evaluates_as_a_compiled_one(fresh: None, tmp_path: Path) -> None:
    compiled = typing.get_type_hints(Hinted, globals())
    compile_cache.install(_recorded(tmp_path))
    cache = compile_cache.installed()
    assert cache is not None
    assert typing.get_type_hints(Hinted, globals()) == compiled
    assert compiled["tags"] == dict[str, list[int]] and compiled["parent"] == Hinted | None
    assert cache.hits == 3
    assert typing.ForwardRef("list[Hinted]")._evaluate(globals(), None, frozenset()) == list[Hinted]
    assert cache.hits == 3  # a text not recorded: compiled afresh
    with pytest.raises(SyntaxError):
        typing.ForwardRef("不是 一个 表达式")


def test_an_edited_class_or_pattern_is_compiled_afresh(fresh: None, tmp_path: Path) -> None:
    compile_cache.install(_recorded(tmp_path))
    cache = compile_cache.installed()
    assert cache is not None
    # a default is no part of the text (``__init__`` reads it from its namespace): served
    assert _define(CLASS.replace("y: int = 0", "y: int = 7"))(1).y == 7
    served = cache.hits
    edited = _define(CLASS.replace("y: int = 0", "y: int = 0\n    z: str = '乙'"))
    assert edited(1).z == "乙" and edited(1) != edited(1, 0, "丙")
    assert repr(edited(1)) == "Point(x=1, y=0, z='乙', tags=())"
    assert cache.hits == served  # every method's text changed: all compiled afresh
    # compiled as dataclasses compiles it: the field's annotation, not the name of the local
    # that holds it ("_type_z", had the text inherited compile_cache's __future__ import)
    assert edited.__init__.__annotations__["z"] == "str"
    assert re.compile(PATTERN + "$").search("萧炎道") is not None
    assert re.compile(PATTERN + "$").search("萧炎道了") is None
    assert re.compile(PATTERN, re.IGNORECASE).flags & re.IGNORECASE
    assert cache.hits == served


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        marshal.dumps(("Python 2.7", {}, {})),
        marshal.dumps([1, 2, 3]),
    ],
    ids=["empty", "garbage", "foreign", "wrong-shape"],
)
def test_an_unusable_file_means_compiling_as_before(
    fresh: None, tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "cache.marshal"
    path.write_bytes(content)
    compile_cache.install(path)
    assert _define()(1).y == 0
    assert re.compile(PATTERN).search("萧炎说") is not None
    cache = compile_cache.installed()
    assert cache is not None and cache.hits == 0


def test_another_interpreter_does_not_read_the_file(fresh: None, tmp_path: Path) -> None:
    path = _recorded(tmp_path)
    header, texts, patterns = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps(((header[0] + "+", *header[1:]), texts, patterns)))
    compile_cache.install(path)
    _define()
    re.compile(PATTERN)
    cache = compile_cache.installed()
    assert cache is not None and cache.hits == 0


def test_a_missing_file_means_compiling_as_before(fresh: None, tmp_path: Path) -> None:
    compile_cache.install(tmp_path / "absent.marshal")
    assert _define()(2).x == 2


def test_debug_patterns_are_never_served(fresh: None, tmp_path: Path) -> None:
    compile_cache.install(_recorded(tmp_path))
    cache = compile_cache.installed()
    assert cache is not None
    re.compile(PATTERN, re.DEBUG)
    assert cache.hits == 0


def test_recording_refuses_a_process_that_serves(fresh: None, tmp_path: Path) -> None:
    compile_cache.install(tmp_path / "absent.marshal")
    with pytest.raises(RuntimeError), compile_cache.Recorder():
        pass


def test_the_installed_cache_holds_what_the_compiler_produces(fresh: None) -> None:
    """Every entry of ``make install``'s file is what compiling its key gives today."""
    path = compile_cache.cache_file()
    assert path.is_file(), "make install writes the compile cache"
    header, texts, patterns = marshal.loads(path.read_bytes())
    assert header == compile_cache._header()
    assert {mode for mode, *_ in texts} == {"exec", "eval"}
    generated = [key for key in texts if key[1].startswith("<sqlalchemy generated")]
    assert len(texts) > 1000 and len(patterns) > 100 and len(generated) > 50
    for (mode, filename, flags, text), entry in texts.items():
        assert marshal.loads(entry) == compile(text, filename, mode, flags, dont_inherit=True)
    sre = re._compiler._sre  # type: ignore[attr-defined]
    for (pattern, flags), entry in patterns.items():
        final_flags, code, groups, groupindex, indexgroup = marshal.loads(entry)
        served = sre.compile(pattern, final_flags, code, groups, groupindex, indexgroup)
        assert served == re._compiler.compile(pattern, flags), pattern  # type: ignore[attr-defined]


def test_the_muse_command_serves_from_the_cache(tmp_path: Path) -> None:
    """A process that imports the commands takes most of its dataclass methods and patterns
    from the file (a new class or pattern that misses it would only cost time)."""
    probe = (
        "import muse.cli.main, muse.flow.production, muse.quality.mechanical\n"
        "from muse.core import compile_cache\n"
        "print(compile_cache.installed().hits)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert int(done.stdout) > 300


def test_sqlalchemy_s_generated_functions_are_served_as_compiled(tmp_path: Path) -> None:
    """SQLAlchemy compiles the functions it writes as text (the wrapper of each decorator …)
    in ``langhelpers``; a process that installs the cache before it loads takes them from the
    file, with the ``__future__`` flags ``langhelpers`` gives them, and they work."""
    probe = (
        "import sys\n"
        "import muse.cli\n"
        "from muse.core import compile_cache\n"
        "assert 'sqlalchemy' not in sys.modules\n"
        "before = compile_cache.installed().hits\n"
        "import sqlalchemy, inspect\n"
        "from sqlalchemy.util import langhelpers\n"
        "assert langhelpers.compile.__module__ == 'muse.core.compile_cache'\n"
        "print(compile_cache.installed().hits - before)\n"
        "print(sqlalchemy.select(sqlalchemy.literal(1)).compile())\n"
        "print(inspect.signature(sqlalchemy.sql.expression.Select.where))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    hits, sql, signature = done.stdout.strip().split("\n", 2)
    assert int(hits) > 50
    assert sql.startswith("SELECT :param_1")
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            "import inspect, sqlalchemy\n"
            "print(inspect.signature(sqlalchemy.sql.expression.Select.where))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert signature.strip() == plain.stdout.strip()


def test_a_module_is_given_the_hooks_when_it_loads(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "seeded_probe.py").write_text("def run():\n    return compile('1', 'x', 'eval')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    calls: list[str] = []

    def fake(source, filename, mode, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(source)
        return compile(source, filename, mode)

    fake.__module__ = compile_cache.__name__  # what _shadow_on_load takes back
    compile_cache._shadow_on_load("seeded_probe", {"compile": fake})
    try:
        import seeded_probe  # type: ignore[import-not-found]

        assert eval(seeded_probe.run()) == 1 and calls == ["1"]
    finally:
        compile_cache._shadow_on_load("seeded_probe", {})
        sys.modules.pop("seeded_probe", None)
    assert "compile" not in vars(seeded_probe)
    finders = [f for f in sys.meta_path if isinstance(f, compile_cache._OnLoad)]
    assert [f for f in finders if f.name == "seeded_probe"] == []
