# poolcheckers — the two set-up commands of the README:
#   make run    create the venv, install what the site needs, build the native core,
#               start the web app
#   make test   the same with the test, tooling and cluster extras, then every check CI
#               runs (with node and npm for the JavaScript's checks; make run needs
#               neither: the pages are served as-is)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed-stamp
RUN_STAMP = $(VENV)/.installed-run-stamp
NODE_STAMP = node_modules/.installed-stamp

.PHONY: setup run test lint typecheck typecheck-js pytest native-sanitize verify-tables system-deps catalogs clean

$(STAMP): pyproject.toml setup.py $(wildcard native/*.c native/*.h)
	bash scripts/build-deps.sh $(PYTHON)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	POOLCHECKERS_REQUIRE_NATIVE=1 $(PY) -m pip install --quiet -e '.[web,dev,distributed,tooling]'
	touch $(STAMP)

setup: $(STAMP)

# the site alone: no test, tooling or cluster extras (an environment set up by make test
# keeps them: installing the package again removes none)
$(RUN_STAMP): pyproject.toml setup.py $(wildcard native/*.c native/*.h)
	bash scripts/build-deps.sh $(PYTHON)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	POOLCHECKERS_REQUIRE_NATIVE=1 $(PY) -m pip install --quiet -e '.[web]'
	touch $(RUN_STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/poolcheckers serve $(ARGS)

system-deps:
	bash scripts/system-deps.sh

# The site's words, after a change to them: extracted again (babel.cfg, babel-js.cfg)
# into the templates, and merged into each language's catalog for its translators
# (tests/server/test_i18n.py fails while a word is missing or untranslated). The .mo
# files are compiled by setup.py when the package is built (scripts/catalogs.py).
catalogs: setup
	$(PY) scripts/catalogs.py

lint: setup
	$(VENV)/bin/ruff check poolcheckers tests benchmarks
	$(VENV)/bin/ruff format --check poolcheckers tests benchmarks

# mypy checks the files of [tool.mypy] in pyproject.toml: poolcheckers, benchmarks and tests
typecheck: setup
	$(VENV)/bin/mypy --strict

# The development tools of package-lock.json, installed again only when the lock changes.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

# The web app's JavaScript: TypeScript checks it through its JSDoc types (tsconfig.json),
# ESLint keeps every function at most 80 lines as test_structure.py does for the
# server's Python (eslint.config.mjs).
typecheck-js: system-deps $(NODE_STAMP)
	node_modules/.bin/tsc -p .
	node_modules/.bin/eslint --max-warnings 0 poolcheckers/server/static

# the 25 slowest tests are printed at the end: CI must stay under 30 minutes
pytest: system-deps setup
	$(PY) -m pytest -q --durations=25 $(PYTEST_ARGS)

native-sanitize: setup
	bash scripts/native-sanitize.sh

# Every position of up to 4 pieces against the full-state solver under every R18 limit
# 1..25 and both R19 options (about a quarter of an hour of one core; `make test` checks
# five of the limits).
verify-tables: setup
	POOLCHECKERS_EVERY_LIMIT=1 $(PY) -m pytest -q tests/egdb/test_every_rule_limit.py

test: system-deps setup lint typecheck typecheck-js native-sanitize pytest

clean:
	rm -rf $(VENV) node_modules build *.egg-info poolcheckers/*.so
