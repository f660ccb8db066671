# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# two stamps: the project with its core dependencies (make demo), then the [dev] extras
# too (make test, lint, docs), so that demo then test, or test alone, each install once
CORE_STAMP := $(VENV)/.core-installed
STAMP := $(VENV)/.installed
# empty: pip's own indexes choose torch's build (below); a CPU-only torch from anywhere:
# make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=

.PHONY: demo test lint docs setup setup-rllib clean

# torch is pinned and installed before the project, so that the project's torch>=2.2 is
# already met and pip picks no other version. The pin does not choose the build: pip
# takes whichever torch==2.13.0 wheel its indexes offer first. That is the CPU build
# (2.13.0+cpu) only where pip is configured with a local wheel or index that offers it
# first, as on the machines this project is built on; from plain PyPI, Linux x86_64
# gets the CUDA build (with its nvidia-* packages, gigabytes), macOS and Windows one
# without CUDA. TORCH_INDEX=https://download.pytorch.org/whl/cpu adds that --index-url
# to the torch line for a CPU-only build; it is not the default because these machines
# reach only the package registry.
#
# The sizes said below were measured in this project's venv (CPU torch 2.13.0, Python
# 3.11): the core set installs 47 packages, 1.13 GB, of which torch is 0.76 GB; [dev]
# (Ray, TorchRL, OpenSpiel, Optuna, Selenium, MkDocs, pygame, ...) brings it to 1.82 GB.
define CORE_NOTICE
Setting up $(VENV): torch==2.13.0, then this project and its core dependencies (no extras).
About 1.1 GB with the CPU build of torch (torch itself ~0.75 GB); a few minutes on a good
connection. From plain PyPI, Linux x86_64 gets torch's CUDA build instead, several GB more;
for the CPU-only build add TORCH_INDEX=https://download.pytorch.org/whl/cpu to the make
command (it runs: pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu).
endef
export CORE_NOTICE
define DEV_NOTICE
Adding the [dev] extras to $(VENV) (tests, ruff, docs, Ray, TorchRL, OpenSpiel, Optuna,
Selenium, pygame): about 0.7 GB more, 1.8 GB in all with the CPU torch; a few minutes.
endef
export DEV_NOTICE

# the notice comes first, before the venv is made
$(CORE_STAMP): pyproject.toml
	@echo "$$CORE_NOTICE"
	[ -x $(PY) ] || { $(PYTHON) -m venv $(VENV) && $(PY) -m pip install --upgrade pip; }
	$(PY) -m pip install torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -m pip install -e .
	touch $(CORE_STAMP)

$(STAMP): $(CORE_STAMP) pyproject.toml
	@echo "$$DEV_NOTICE"
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
	$(VENV_RLLIB)/bin/python -m pip install torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(VENV_RLLIB)/bin/python -m pip install -e '.[rllib]'
	touch $(RLLIB_STAMP)

setup-rllib: $(RLLIB_STAMP)

# the demo needs only the core: no extras
demo: $(CORE_STAMP)
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
