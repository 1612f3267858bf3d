# Two commands do everything on a fresh machine:
#   make demo   creates .venv if missing, installs, lints fixtures/, runs the runtime demo
#   make test   creates .venv if missing, installs, runs the test suite (torch 2.13.0)
# CI (.ci/run) runs `make test-all`: the whole suite on torch 2.13.0, then the runtime
# guard's tests and the peer suite again on torch 2.14.1, in a second venv (.venv-2.14).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is pinned: an unpinned install pulls a multi-GB CUDA build. The runtime extra
# declares exactly the tested range (pyproject.toml).
TORCH := torch==2.13.0
VENV_214 := .venv-2.14
TORCH_214 := torch==2.14.1
# What PyTorch's own tests (tests/peer) import besides torch.
PEER_DEPS := expecttest==0.3.0 numpy==2.4.6
STAMP := $(VENV)/.installed
STAMP_214 := $(VENV_214)/.installed

.PHONY: demo test test-2.14 test-all lint-fixtures bench-models clean

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" $(PEER_DEPS) -e ".[dev,runtime]"
	touch $(STAMP)

$(STAMP_214): pyproject.toml Makefile
	test -x $(VENV_214)/bin/python || $(PYTHON) -m venv $(VENV_214)
	$(VENV_214)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_214)/bin/python -m pip install --quiet "$(TORCH_214)" $(PEER_DEPS) -e ".[dev,runtime]"
	touch $(STAMP_214)

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

# The runtime guard's tests (its hostile-condition ones too) and the peer suite on the
# second supported torch.
test-2.14: $(STAMP_214)
	$(VENV_214)/bin/python -m pytest -q -n 2 tests/runtime_guard tests/peer tests/reliability/test_guard_*.py

test-all: test test-2.14

# benchmarks/real_models.py: tiny transformers and diffusers models (built from configs, no
# weights) under inductor, backend="aigcheck" and install(); their own venv, never the tests'.
VENV_MODELS := .venv-models
bench-models:
	test -x $(VENV_MODELS)/bin/python || $(PYTHON) -m venv $(VENV_MODELS)
	$(VENV_MODELS)/bin/python -m pip install --quiet "$(TORCH)" transformers==5.24.0 diffusers==0.42.1 -e .
	$(VENV_MODELS)/bin/python benchmarks/real_models.py --write

clean:
	rm -rf $(VENV) $(VENV_214) .venv-models *.egg-info .pytest_cache
