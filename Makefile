# The two commands the README promises, plus lint and benchmarks.
#   make demo   set up a virtual environment with the core package and run the main job
#   make test   set up everything the tests need (Python packages, Chromium) and run them
#   make docs   build the documentation site into site/ (strict: any warning fails)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test lint js-lint check bench browser clean docs docs-serve docs-figures docs-check \
	docs-update

$(VENV)/.core: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	# An editable install compiles no bytecode (a wheel's does), and with PYTHONDONTWRITEBYTECODE
	# set nothing ever would: every start of the command line would compile the package anew.
	$(PY) -m compileall -q src/mcnemar
	touch $@

$(VENV)/.test: pyproject.toml $(VENV)/.core
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

$(VENV)/.bench: pyproject.toml $(VENV)/.test
	$(PY) -m pip install -q -e ".[bench]"
	touch $@

$(VENV)/.docs: pyproject.toml $(VENV)/.core
	$(PY) -m pip install -q -e ".[docs]"
	touch $@

demo: $(VENV)/.core
	@echo "== LDA vs QDA on scikit-learn's digits (examples/digits_predictions.csv) =="
	$(PY) examples/demo.py
	@echo
	@echo "== The calculator's 200-item example =="
	$(VENV)/bin/mcnemar test --a 157 --b 17 --c 3 --d 23 --name-a candidate --name-b baseline

browser:
	sh scripts/install-browser.sh

# One worker per core; a test module stays on one worker, so its server, browser or Spark
# session starts once.
test: $(VENV)/.test browser
	$(PY) -m pytest -q -n auto --dist loadfile

lint: $(VENV)/.test js-lint
	$(VENV)/bin/ruff check src tests benchmarks examples scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The page's JavaScript (native ES modules, no build step): ESLint, pinned in package.json and
# installed from package-lock.json, then the unit tests of its pure functions (node's runner).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

js-lint: node_modules/.installed
	node_modules/.bin/eslint src/mcnemar/web/static tests/js eslint.config.js
	node --test tests/js/

check: lint test

bench: $(VENV)/.bench
	$(PY) benchmarks/run_all.py

# The site: strict (broken links, missing references and warnings fail), then a check that the
# pages load nothing from other hosts. NO_MKDOCS_2_WARNING silences the theme's upgrade banner.
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --clean --site-dir site
	$(PY) scripts/check_site_offline.py site

docs-serve: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --strict

# Run every example of the README and the site and compare what it prints (docs-check), or
# rewrite the outputs shown in the pages with what the code prints now (docs-update; review
# the result with git diff).
docs-check: $(VENV)/.test
	$(PY) -m pytest -q -p no:cacheprovider tests/test_docs.py

docs-update: $(VENV)/.test
	MCNEMAR_DOCS_UPDATE=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_docs.py

# Regenerate the figures under docs/img/ (web calculator screenshots through Chromium, plots,
# the figures of docs/decisions.md).
docs-figures: $(VENV)/.test browser
	$(PY) -m pip install -q -e ".[examples]"
	$(PY) scripts/make_docs_figures.py
	$(PY) scripts/make_decision_figures.py > /dev/null

clean:
	rm -rf $(VENV) site .pytest_cache .mypy_cache .ruff_cache .hypothesis tests/artifacts node_modules
