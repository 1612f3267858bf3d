# Two commands do everything on a fresh machine:
#   make demo   creates .venv if missing, installs, lints fixtures/, runs the runtime demo
#   make test   creates .venv if missing, installs, runs the test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is pinned: an unpinned install pulls a multi-GB CUDA build.
TORCH := torch==2.13.0
STAMP := $(VENV)/.installed

.PHONY: demo test lint-fixtures clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" -e ".[dev,runtime]"
	touch $(STAMP)

demo: $(STAMP) lint-fixtures
	@echo "== runtime guard: a silent violation under inductor, then strict mode naming it"
	$(BIN)/python examples/runtime_guard_demo.py

lint-fixtures: $(STAMP)
	@echo "== aigcheck fixtures/good (expect no findings)"
	$(BIN)/aigcheck fixtures/good
	@echo "== aigcheck fixtures/bad (expect findings, exit status 1)"
	$(BIN)/aigcheck fixtures/bad; test $$? -eq 1

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
