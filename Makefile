# poolcheckers — the two set-up commands of the README:
#   make run    create the venv, install, build the native core, start the web app
#   make test   the same set-up, then every check CI runs
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed-stamp

.PHONY: setup run test lint typecheck pytest native-sanitize system-deps clean

$(STAMP): pyproject.toml setup.py $(wildcard native/*.c native/*.h)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	POOLCHECKERS_REQUIRE_NATIVE=1 $(PY) -m pip install --quiet -e '.[dev,distributed,tooling]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(VENV)/bin/poolcheckers serve $(ARGS)

system-deps:
	bash scripts/system-deps.sh

lint: setup
	$(VENV)/bin/ruff check poolcheckers tests benchmarks
	$(VENV)/bin/ruff format --check poolcheckers tests benchmarks

# mypy checks the files of [tool.mypy] in pyproject.toml: poolcheckers, benchmarks and tests
typecheck: setup
	$(VENV)/bin/mypy --strict

pytest: setup system-deps
	$(PY) -m pytest -q $(PYTEST_ARGS)

native-sanitize: setup
	bash scripts/native-sanitize.sh

test: setup system-deps lint typecheck native-sanitize pytest

clean:
	rm -rf $(VENV) build *.egg-info poolcheckers/*.so
