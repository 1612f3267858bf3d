# Two commands do everything on a fresh machine:
#   make demo   creates .venv if missing, installs torch and aigcheck[runtime] only, lints
#               fixtures/, runs the runtime demo
#   make test   the same .venv, plus the test tools and the peer suite's imports, then the
#               test suite (torch 2.13.0); after `make demo` it installs only what is missing
# CI (.ci/run) runs `make test`, then `make test-2.14`: the whole suite on torch 2.13.0, then the runtime
# guard's tests and the peer suite again on torch 2.14.1, in a second venv (.venv-2.14).
#
# Where torch comes from: pip's default index unless told otherwise. On a machine where that
# resolves to the CUDA build (several GB), `make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu`
# installs the CPU build (torch alone from that index; everything else from the default one),
# and `TORCH_WHEEL=path-or-url` installs .venv's torch from a wheel file. Both count when a venv
# is installed: `make clean` first to change an existing one's torch.
PYTHON ?= python3
TORCH_INDEX ?=
TORCH_WHEEL ?=
VENV := .venv
BIN := $(VENV)/bin
# torch is pinned: an unpinned install pulls a multi-GB CUDA build. The runtime extra
# declares exactly the tested range (pyproject.toml).
TORCH := torch==2.13.0
VENV_214 := .venv-2.14
TORCH_214 := torch==2.14.1
# What PyTorch's own tests (tests/peer) import besides torch.
PEER_DEPS := expecttest==0.3.0 numpy==2.4.6
# One stamp per layer: the demo's (torch and the runtime extra), then the tests' on top.
RUNTIME_STAMP := $(VENV)/.installed-runtime
TEST_STAMP := $(VENV)/.installed-test
TEST_STAMP_214 := $(VENV_214)/.installed-test

# $(call install_runtime,venv,torch requirement): the venv if missing, then torch in a pip
# command of its own (so that TORCH_INDEX applies to torch alone), then aigcheck[runtime].
define install_runtime
test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
$(1)/bin/python -m pip install --quiet --upgrade pip
$(1)/bin/python -m pip install --quiet$(if $(TORCH_INDEX), --index-url "$(TORCH_INDEX)") "$(2)"
$(1)/bin/python -m pip install --quiet -e ".[runtime]"
endef

# The tests' layer: the dev extra and the peer suite's imports, from the default index.
define install_test
$(1)/bin/python -m pip install --quiet $(PEER_DEPS) -e ".[dev,runtime]"
endef

.PHONY: demo test test-2.14 test-all lint-fixtures bench-models clean

$(RUNTIME_STAMP): pyproject.toml Makefile
	$(call install_runtime,$(VENV),$(or $(TORCH_WHEEL),$(TORCH)))
	touch $@

$(TEST_STAMP): $(RUNTIME_STAMP)
	$(call install_test,$(VENV))
	touch $@

$(TEST_STAMP_214): pyproject.toml Makefile
	$(call install_runtime,$(VENV_214),$(TORCH_214))
	$(call install_test,$(VENV_214))
	touch $@

# The demo needs no numpy; torch only warns that it is missing, which says nothing here.
demo: $(RUNTIME_STAMP) lint-fixtures
	@echo "== runtime guard: a silent violation under inductor, then strict mode naming it"
	PYTHONWARNINGS="ignore:Failed to initialize NumPy:UserWarning" $(BIN)/python examples/runtime_guard_demo.py

lint-fixtures: $(RUNTIME_STAMP)
	@echo "== aigcheck fixtures/good (expect no findings)"
	$(BIN)/aigcheck fixtures/good
	@echo "== aigcheck fixtures/bad (expect findings, exit status 1)"
	$(BIN)/aigcheck fixtures/bad; test $$? -eq 1

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal

# The runtime guard's tests (its hostile-condition ones too) and the peer suite on the
# second supported torch.
test-2.14: $(TEST_STAMP_214)
	$(VENV_214)/bin/python -m pytest -q -n 2 --dist worksteal tests/runtime_guard tests/peer tests/reliability/test_guard_*.py

test-all: test test-2.14

# benchmarks/real_models.py: tiny transformers and diffusers models (built from configs, no
# weights) under inductor, backend="aigcheck" and install(); their own venv, never the tests'.
VENV_MODELS := .venv-models
bench-models:
	$(call install_runtime,$(VENV_MODELS),$(TORCH))
	$(VENV_MODELS)/bin/python -m pip install --quiet transformers==5.24.0 diffusers==0.42.1
	$(VENV_MODELS)/bin/python benchmarks/real_models.py --write

clean:
	rm -rf $(VENV) $(VENV_214) .venv-models *.egg-info .pytest_cache
