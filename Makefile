# Two commands: `make demo` and `make test`. Both set up .venv on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
DEV := $(VENV)/.installed-dev
TRAIN := $(VENV)/.installed-train
SYSDEPS := $(VENV)/.installed-system
DEMODEPS := $(VENV)/.installed-demo-system

.PHONY: demo test lint venv train-env system-deps bench-engine clean

$(DEV): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	touch $@

# The train extra: torch pinned to the local builds, ultralytics for training and export.
# Ultralytics drags in opencv-python beside the headless build; the runtime stays headless.
$(TRAIN): $(DEV)
	$(PIP) install -q -e '.[dev,train]'
	-$(VENV)/bin/opt_in_out --opt_out >/dev/null 2>&1  # OpenVINO telemetry off
	-$(PIP) uninstall -y -q opencv-python
	$(PIP) install -q --force-reinstall --no-deps "$$($(PY) -c 'import importlib.metadata as m; print("opencv-python-headless==" + m.version("opencv-python-headless"))')"
	touch $@

$(SYSDEPS): deploy/system-deps.sh
	@mkdir -p $(VENV)
	deploy/system-deps.sh
	touch $@

# The demo films a rendered table: card art and the SVG renderer. Without root it says what to
# install and the demo falls back to its bots feed.
$(DEMODEPS): deploy/system-deps.sh
	@mkdir -p $(VENV)
	-deploy/system-deps.sh demo && touch $@

venv: $(DEV)
train-env: $(TRAIN)
system-deps: $(SYSDEPS)

demo: $(DEV) $(DEMODEPS)
	$(VENV)/bin/ddz-table demo

lint: $(DEV)
	$(VENV)/bin/ruff check .

test: $(TRAIN) $(SYSDEPS) lint
	$(VENV)/bin/pytest -q

# The engine benchmark compares against rlcard and douzero, kept out of the project venv.
BENCHVENV ?= /tmp/ddz-benchvenv
bench-engine:
	test -x $(BENCHVENV)/bin/python || $(PYTHON) -m venv $(BENCHVENV)
	$(BENCHVENV)/bin/pip install -q rlcard
	$(BENCHVENV)/bin/pip install -q --no-deps douzero
	$(BENCHVENV)/bin/pip install -q --no-deps -e .
	$(BENCHVENV)/bin/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
