# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: demo test install lint clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

# Embedded SQLite under .data/, jobs in-process (no REDIS_URL), the site on http://127.0.0.1:8000.
demo: install
	DJANGO_SETTINGS_MODULE=config.settings.local $(PY) manage.py migrate --noinput
	DJANGO_SETTINGS_MODULE=config.settings.local $(PY) manage.py load_demo
	DJANGO_SETTINGS_MODULE=config.settings.local $(PY) manage.py runserver 127.0.0.1:8000

# PostgreSQL and Redis are used when they answer (or DATABASE_URL / REDIS_URL say where);
# the suite says loudly what it skipped. REQUIRE_SERVICES=1 turns every skip into a failure.
test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .

clean:
	rm -rf .data staticfiles bench/out .pytest_cache
