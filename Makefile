# Two commands, both self-contained on a fresh clone (see README.md):
#   make run    install into .venv and run the demo debate
#   make test   install into .venv (with dev tools) and run lint + tests
# Every install goes through constraints.txt, which pins torch to the CPU
# build these machines carry, so pip never pulls a CUDA build here.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test lint bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.app-installed: pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PIP) -e ".[nlp]"
	touch $@

$(VENV)/.dev-installed: $(VENV)/.app-installed
	$(PIP) -e ".[dev,nlp]"
	touch $@

run: $(VENV)/.app-installed
	$(PY) -m debate_core run $(ARGS)

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest -q

bench: $(VENV)/.app-installed
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
