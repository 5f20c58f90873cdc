# Every target creates .venv if missing and installs the package with its test extras from the
# registries, at the exact versions in constraints.txt (pip's -c format).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tempering demo

# Test files run on every core (pytest-xdist; a file's tests stay on one worker, so module-scoped
# fixtures are built once); the workers share one JAX compilation cache (tests/conftest.py).
test: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto --dist loadfile

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadfile -m slow

lint: $(STAMP)
	$(BIN)/ruff check src tests

typecheck: $(STAMP)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
