# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint docs setup setup-rllib clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# torch is pinned and installed before the project, so that the project's torch>=2.2 is
# already met and pip picks no other version. The pin does not choose the build: pip
# takes whichever torch==2.13.0 wheel its indexes offer first. That is the CPU build
# (2.13.0+cpu) only where pip is configured with a local wheel or index that offers it
# first, as on the machines this project is built on; from plain PyPI, Linux x86_64
# gets the CUDA build (with its nvidia-* packages, gigabytes), macOS and Windows one
# without CUDA. Elsewhere a CPU-only install adds --index-url https://download.pytorch.org/whl/cpu
# to the torch line; it is left out here because these machines reach only the package
# registry.
$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# RLlib's own venv for examples/rllib_selfplay.py and its test: ray[rllib] pins
# gymnasium 1.2.2, which the main venv does not take (torch first, as above)
VENV_RLLIB := .venv-rllib
RLLIB_STAMP := $(VENV_RLLIB)/.installed
$(RLLIB_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV_RLLIB)
	$(VENV_RLLIB)/bin/python -m pip install --upgrade pip
	$(VENV_RLLIB)/bin/python -m pip install torch==2.13.0
	$(VENV_RLLIB)/bin/python -m pip install -e '.[rllib]'
	touch $(RLLIB_STAMP)

setup-rllib: $(RLLIB_STAMP)

demo: $(STAMP)
	$(PY) -m otrio demo

test: $(STAMP)
	$(PY) -m pytest tests

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# the documentation site into site/ (open site/index.html); warnings are errors. Its
# tables and pictures are made from the code as it builds (docs/hooks.py).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) $(VENV_RLLIB) build dist site *.egg-info
