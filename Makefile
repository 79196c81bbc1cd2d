# Two commands: `make demo` and `make test`. Both set up .venv on a fresh machine.
# `make test-fast` is the quick check while working: the dev venv only (no train extra, no apt
# packages: no browser, no training, no card art), nothing that takes seconds per test.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
DEV := $(VENV)/.installed-dev
TRAIN := $(VENV)/.installed-train
SYSDEPS := $(VENV)/.installed-system
DEMODEPS := $(VENV)/.installed-demo-system
# The solver's compiled core (engine/solver/_core.c), built in place by `pip install -e .`; built
# again whenever its C sources change, so that tests never run a stale core beside new Python.
SOLVER := $(VENV)/.built-solver
SOLVER_SRC := $(wildcard engine/solver/*.c engine/solver/*.h) setup.py

.PHONY: demo test test-fast lint typecheck venv train-env system-deps bench-engine pi-check clean

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

$(SOLVER): $(DEV) $(SOLVER_SRC)
	$(PY) setup.py -q build_ext --inplace
	touch $@

venv: $(DEV)
train-env: $(TRAIN)
system-deps: $(SYSDEPS)

demo: $(DEV) $(SOLVER) $(DEMODEPS)
	$(VENV)/bin/ddz-table demo

lint: $(DEV)
	$(VENV)/bin/ruff check .

# mypy as [tool.mypy] in pyproject.toml sets it: engine/ and vision/ strict, the rest at the
# default level. The train extra's types (torch) are checked where it is installed (make test).
typecheck: $(DEV)
	$(VENV)/bin/mypy

test: $(TRAIN) $(SYSDEPS) $(SOLVER) lint typecheck
	$(VENV)/bin/pytest -q

# The vision tests that need neither card art (apt) nor the train extra.
FAST_VISION := $(addprefix tests/vision/,test_camera_geometry.py test_detector_errors.py \
	test_detector_maths.py test_grouping.py test_sources_mjpeg.py \
	test_sources_picamera.py test_sources_webcam.py)
# The lab's tests of the simulated table and the demo feeds (those that render card art are marked `art`).
FAST_SIM := $(addprefix tests/sim/,test_bots.py test_compare.py test_toy.py test_simulate.py test_evaluate.py \
	test_demo_camera_feed.py test_demo_corrector.py test_demo_feeder.py)
# The browser module checks for chromium when it is imported, so it is left out, not just deselected.
test-fast: $(DEV) $(SOLVER)
	$(VENV)/bin/pytest -q -m "not slow and not browser and not train and not art and not heavy" \
		--ignore=tests/webui/test_webui_browser.py \
		tests/engine tests/tracker tests/webui tests/box tests/cli tests/test_layers.py tests/test_words.py tests/test_shared_constants.py \
		$(FAST_SIM) $(FAST_VISION)

# The Pi box on arm64 (deploy/raspberrypi/README.md, "The arm64 check"): a Debian arm64 root under
# qemu, the installer, the service and the detector checked against this PC. Root; 1-2 hours the
# first time; not part of `make test`. It films its test game with the card art (demo packages).
pi-check: $(DEV) $(DEMODEPS)
	deploy/raspberrypi/pi-check.sh

# The engine benchmark compares against rlcard and douzero, kept out of the project venv.
BENCHVENV ?= /tmp/ddz-benchvenv
bench-engine:
	test -x $(BENCHVENV)/bin/python || $(PYTHON) -m venv $(BENCHVENV)
	$(BENCHVENV)/bin/pip install -q rlcard
	$(BENCHVENV)/bin/pip install -q --no-deps douzero
	$(BENCHVENV)/bin/pip install -q --no-deps -e .
	$(BENCHVENV)/bin/python -m bench.engine

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
