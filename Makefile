# The README's two commands: `make demo` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: demo test test-sqlite test-pg lint bench install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# compileall: the environment sets PYTHONDONTWRITEBYTECODE=1, so without it every process
# recompiles the editable install's modules. Safe: Python ignores a .pyc whose source changed.
# template_cache: the prompt templates compiled once (ignored too when a template changed).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/python -m compileall -q src
	touch $(STAMP)

# The prompt templates compiled once (muse.agents.template_cache), again whenever one changes.
TEMPLATES := $(shell find src/muse/agents/prompts -name '*.j2')
TEMPLATE_STAMP := src/muse/agents/prompts/__jinjacache__/.stamp
$(TEMPLATE_STAMP): $(TEMPLATES) | $(STAMP)
	$(BIN)/python -m muse.agents.template_cache
	touch $(TEMPLATE_STAMP)

# The packaged YAML files a command reads, as JSON (muse.core.packaged_yaml.PACKAGED), again
# whenever one changes.
PACKAGED_YAML := src/muse/agents/roles.yaml src/muse/knowledge/card_types.yaml
YAML_STAMP := src/muse/agents/__yamlcache__/.stamp
$(YAML_STAMP): $(PACKAGED_YAML) | $(STAMP)
	$(BIN)/python -m muse.core.packaged_yaml
	touch $(YAML_STAMP)

# What the modules compile at import (dataclass methods, annotations, SQLAlchemy's generated
# functions, regular expressions), recorded once (muse.core.compile_cache), again whenever a
# module or the installed packages change (a normal prerequisite on $(STAMP)): a stale entry is
# never used, only missed.
SOURCES := $(shell find src/muse -name '*.py' -not -path '*/__pycache__/*')
COMPILE_CACHE := src/muse/__compilecache__/.stamp
$(COMPILE_CACHE): $(SOURCES) $(STAMP)
	$(BIN)/python -m muse.core.compile_cache
	touch $(COMPILE_CACHE)

install: $(STAMP) $(TEMPLATE_STAMP) $(YAML_STAMP) $(COMPILE_CACHE)

demo: install
	$(BIN)/python -m muse.demo

# pytest-xdist workers for `make test` (`make test XDIST=` runs in one process). Each worker
# migrates its own template once; every test gets a copy of it (tests/conftest.py). Work
# stealing: a worker that runs out takes tests queued on the other, so the slow evaluation and
# browser files at the end of the run are not left on one worker.
XDIST ?= -n 2 --dist worksteal

# The whole suite on SQLite, then again on PostgreSQL when MUSE_TEST_DATABASE_URL is set.
# The suite includes the layer check (tests/test_layers.py), so CI enforces it.
test: install
	$(BIN)/python -m pytest tests -p no:randomly $(XDIST)
	@if [ -n "$$MUSE_TEST_DATABASE_URL" ]; then \
		echo "== PostgreSQL: $$MUSE_TEST_DATABASE_URL =="; \
		MUSE_TEST_BACKEND=postgresql $(BIN)/python -m pytest tests -p no:randomly $(XDIST) -m "not sqlite_only"; \
	else \
		echo "MUSE_TEST_DATABASE_URL is not set: PostgreSQL run skipped (CI sets it)."; \
	fi

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy src
	$(BIN)/python -m pytest tests/test_layers.py -q -p no:randomly

bench: install
	for b in bench/*.py; do case $$b in */synthetic_book.py) ;; *) $(BIN)/python $$b || exit 1;; esac; done

clean:
	rm -rf $(VENV) demo-workspace
