# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: demo test test-fast install lint clean

# The demo installs the runtime requirements only; `make test` (and lint) add the development ones (browser driver,
# fuzzers, mypy, ranx): a fresh `make demo` does not wait for what only the suite uses.
$(VENV)/.runtime: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

# Embedded SQLite under .data/, jobs in-process (no REDIS_URL), the site on http://127.0.0.1:$(PORT), DEBUG off.
# `make demo PORT=8001` (or PORT=8001 in the environment) serves on another port. Run again, load_demo changes
# nothing that exists and prints the same passwords (kept in .data/demo-passwords.txt).
PORT ?= 8000
demo: $(VENV)/.runtime
	DJANGO_SETTINGS_MODULE=config.settings.local $(PY) manage.py migrate --noinput
	DJANGO_SETTINGS_MODULE=config.settings.local $(PY) manage.py load_demo --port $(PORT)
	DJANGO_SETTINGS_MODULE=config.settings.local $(PY) manage.py runserver 127.0.0.1:$(PORT)

# PostgreSQL and Redis are used when they answer (or DATABASE_URL / REDIS_URL say where);
# the suite says loudly what it skipped. REQUIRE_SERVICES=1 turns every skip into a failure.
# mypy first (its settings are in pyproject.toml: a bare `mypy` checks the same).
test: install
	@start=$$(date +%s); $(VENV)/bin/mypy && $(PY) -m pytest $(PYTEST_ARGS); status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s"; exit $$status

# The suite without the browser tests (Chromium), for a quick loop while developing; CI runs them all (make test).
test-fast: install
	@start=$$(date +%s); $(PY) -m pytest -m "not browser" $(PYTEST_ARGS); status=$$?; \
	echo "make test-fast: $$(( $$(date +%s) - start )) s"; exit $$status

lint: install
	$(VENV)/bin/ruff check .

clean:
	rm -rf .data staticfiles bench/out .pytest_cache .mypy_cache
