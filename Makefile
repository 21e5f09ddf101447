# deskd: `make demo` and `make test` work on a fresh clone with only python3 (>= 3.11) and make.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Two pytest-xdist workers: the suite is dominated by subprocess-spawning tests, and on a
# 2-core machine -n 2 finishes in well under the serial time (docs/performance.md).
PYTEST_ARGS ?= -n 2

.PHONY: demo test test-lowest lint venv clean real-agents test-real-agents docs

demo: $(BIN)/.installed
	$(BIN)/deskd demo

# Includes the real-agent tier (tests/real_agents): it installs the CLIs when npm can, else
# skips with a one-line reason; `make test-real-agents` runs that tier alone.
test: $(BIN)/.installed
	@$(PYTHON) tests/real_agents/install.py --if-possible $(REAL_AGENTS_CACHE)
	$(BIN)/pytest $(PYTEST_ARGS)

# The lowest versions pyproject.toml allows, in their own virtualenv, against the tests that
# exercise each dependency (apprise and tenacity: pager; filelock: locks; croniter: schedule;
# pydantic-settings: config; click: every CLI test). The floors it found: filelock 3.30
# (fallback_to_soft), apprise 2.0 (storage_mode, per-service results, notify(timeout=)),
# croniter 7.0 (day-of-month OR day-of-week on rare days), click 8.2 (separate stderr).
# The core dependencies only: the PostgreSQL variants of these suites run in `make test`.
LOWEST ?= .venv-lowest
LOWEST_TESTS ?= tests/config tests/pager tests/schedule/test_schedule_cron.py \
	tests/schedule/test_schedule_dst.py tests/presence/test_locks.py tests/items/test_items_send.py

test-lowest:
	test -x $(LOWEST)/bin/python || $(PYTHON) -m venv $(LOWEST)
	$(PYTHON) scripts/lowest_deps.py > $(LOWEST)/floors.txt
	$(LOWEST)/bin/python -m pip install --quiet --disable-pip-version-check -r $(LOWEST)/floors.txt
	$(LOWEST)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(LOWEST)/bin/python -m pip install --quiet --disable-pip-version-check pytest pytest-xdist hypothesis aiosmtpd
	$(LOWEST)/bin/python -m pip freeze | grep -i -E '^(apprise|filelock|croniter|pydantic|tenacity|click)' 
	$(LOWEST)/bin/pytest $(PYTEST_ARGS) -p no:cacheprovider -k "not postgresql" $(LOWEST_TESTS)

test-real-agents: $(BIN)/.installed real-agents
	$(BIN)/pytest $(PYTEST_ARGS) -m real_agents

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy

venv: $(BIN)/.installed

# docs/cli.md's usage and options blocks, rewritten from the click commands
# (scripts/cli_docs.py; tests/docs/test_cli_reference.py fails when stale).
docs: $(BIN)/.installed
	$(BIN)/python scripts/cli_docs.py --write

# The real agent CLIs for the real-agent test tier (tests/real_agents), at the versions pinned
# in tests/real_agents/versions.json; a cache that already holds them is reused offline.
REAL_AGENTS_CACHE ?= .cache/real-agents
real-agents:
	$(PYTHON) tests/real_agents/install.py $(REAL_AGENTS_CACHE)

# Re-installs when pyproject.toml changes; the marker keeps repeated runs instant.
$(BIN)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "deskd needs Python 3.11 or newer; set PYTHON=python3.11")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,web]'
	@touch $@

clean:
	rm -rf $(VENV) $(LOWEST) build dist .pytest_cache .mypy_cache .ruff_cache src/*.egg-info
