# Every target creates .venv if missing and installs the package with its test extras from the
# registries, at the exact versions in constraints.txt (pip's -c format).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow lint typecheck clean data-fashion-mnist reproduce-li-wong bench-ensemble \
	browser docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip byte-compiles what it installs on one core (~36 s of a fresh install on 2 cores); the
# install skips that and compileall does it on every core (~28 s).
$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -c constraints.txt -e '.[test]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tempering demo

# Debian's Chromium, which tests/cli/test_html_report.py drives through Playwright (needs root to
# install; the test fails without it).
browser:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

# Test files run on every core (pytest-xdist; a file's tests stay on one worker, so module-scoped
# fixtures are built once); the workers share one JAX compilation cache (tests/conftest.py). mypy
# runs beside them (its log is printed after theirs); either failing fails the target.
test: $(STAMP) browser
	$(BIN)/ruff check src tests
	$(BIN)/mypy > $(VENV)/mypy.log 2>&1 & typing=$$!; \
	$(BIN)/python -m pytest -q -n auto --dist loadfile; tests=$$?; \
	wait $$typing; typed=$$?; cat $(VENV)/mypy.log; \
	test $$tests -eq 0 && test $$typed -eq 0

test-slow: $(STAMP) browser
	$(BIN)/python -m pytest -q -n auto --dist loadfile -m slow

# The documentation site into site/ (mkdocs.yml; warnings are errors). make test builds it too, in
# tests/package/test_docs.py, and opens every page in Chromium.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lint: $(STAMP)
	$(BIN)/ruff check src tests

typecheck: $(STAMP)
	$(BIN)/mypy

# Fashion-MNIST for `--set model.data=fashion_mnist` (Debian's package; needs root). The tests do
# not need it.
FASHION_MNIST_DIR := /usr/share/datasets/fashion-mnist
data-fashion-mnist:
	@test -d $(FASHION_MNIST_DIR) || (apt-get update && apt-get install -y dataset-fashion-mnist)

# Seed 003 part 1 (MINT, CMINT) at the paper's sizes, into li-wong/ (hours on a small machine).
# Fashion-MNIST by default; TEMPERING_LI_WONG_DATA=DIR for a directory of MNIST's IDX files.
reproduce-li-wong: $(STAMP) data-fashion-mnist
	$(BIN)/tempering reproduce li-wong --out li-wong

# Seed 004's benchmark: seconds per slow evaluation (Metropolis vs the ensembles) and min-ESS/s on
# GP-ARD against NumPyro's NUTS (NumPyro comes with the test extra, pinned in constraints.txt;
# ~8 min here).
bench-ensemble: $(STAMP)
	$(BIN)/tempering bench ensemble

clean:
	rm -rf $(VENV) build site *.egg-info src/*.egg-info
