# Set-up and checks. Each target creates .venv if it is missing and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CODE   := src tests benchmarks examples

.PHONY: demo test lint typecheck unit docs system-deps bench eval-local clean

demo: $(VENV)/.demo-installed
	$(BIN)/python examples/local_agent.py

test: system-deps $(VENV)/.dev-installed lint typecheck unit docs

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check $(CODE)
	$(BIN)/ruff format --check $(CODE)

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

unit: $(VENV)/.dev-installed
	$(BIN)/pytest

# The documentation site (mkdocs.yml, docs/) into site/, offline: --strict fails on a
# broken link or a missing API reference.
docs: $(VENV)/.dev-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(VENV)/.dev-installed
	$(BIN)/python benchmarks/loop_overhead.py

# The embedded model's tool use on every task set in benchmarks/local_tasks/: checks the
# committed tool threshold is the one the development sets give, then runs every set and
# fails if any figure differs from the published ones (benchmarks/local_tasks/figures.json).
eval-local: system-deps $(VENV)/.dev-installed
	$(BIN)/python benchmarks/fit_tool_threshold.py --check
	$(BIN)/python benchmarks/local_model.py --skip-speed --jobs $$(nproc) --expect benchmarks/local_tasks/figures.json

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# llama-cpp-python is built from source: the first install takes several minutes on 2 cores.
LLAMA_NOTE = @echo ">> installing Tiller with the embedded model; the first build of llama-cpp-python compiles llama.cpp and takes several minutes on 2 cores"
# It is compiled for this machine's CPU (-march=native) but without AMX: on machines whose
# CPU reports AMX to a sandbox that does not grant it, llama.cpp's AMX kernels crash the
# process at their first matrix product (SIGSEGV at ldtilecfg). Compilers without the
# option (other architectures) get no flag.
NO_AMX := $(shell echo | $(CC) -mno-amx-tile -mno-amx-int8 -mno-amx-bf16 -E - >/dev/null 2>&1 \
	&& echo -mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
PIP_INSTALL = CFLAGS="$(NO_AMX) $$CFLAGS" CXXFLAGS="$(NO_AMX) $$CXXFLAGS" \
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/python -m pip install --progress-bar on

$(VENV)/.dev-installed: pyproject.toml | $(VENV)/bin/python
	$(LLAMA_NOTE)
	$(PIP_INSTALL) -e '.[dev,docs,local,anthropic,openai,mcp,solve,server]'
	touch $@

$(VENV)/.demo-installed: pyproject.toml | $(VENV)/bin/python
	$(LLAMA_NOTE)
	$(PIP_INSTALL) -e '.[local]'
	touch $@

# Debian packages the tests use: tmux drives the interactive CLI in terminal tests, bubblewrap
# (bwrap) is the sandbox the shell tool runs commands in, postgresql gives the binaries
# (initdb, pg_ctl) of the PostgreSQL server the store's tests start for themselves, curl
# drives the README's session with `tiller serve`. Only the missing ones are installed.
system-deps:
	@missing=""; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 \
	  || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q $$missing; \
	  else sudo apt-get update -q && sudo apt-get install -y -q $$missing; fi; fi

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache site
