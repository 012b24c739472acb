# PowerContext Memory. `make serve` and `make test` are all a fresh clone needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

ADDR ?= 127.0.0.1:50051
DB ?= data/memory.sqlite3
# auto: a new database gets the multilingual model (hybrid search out of the box), an existing
# one keeps the embedding profile it was created with.
EMBEDDING ?= auto

.PHONY: serve test test-fast lint proto bench verify clean seekdb-start seekdb-stop container-test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# The pinned lock first, then the project's two distributions, editable and without resolving
# again: the client (clients/python: powercontext_client, generated/, the `powercontext` command)
# and the server (pyproject.toml: powercontext_memory, the `powercontext-memory` command).
CLIENT_PYPROJECT := clients/python/pyproject.toml
$(VENV)/.runtime: requirements.txt pyproject.toml $(CLIENT_PYPROJECT) | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	$(BIN)/pip install -q --no-deps -e clients/python -e .
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt pyproject.toml $(CLIENT_PYPROJECT) | $(BIN)/python
	$(BIN)/pip install -q -r requirements-dev.txt
	$(BIN)/pip install -q --no-deps -e clients/python -e .
	touch $@ $(VENV)/.runtime

serve: $(VENV)/.runtime
	$(BIN)/powercontext-memory serve --listen $(ADDR) --database $(DB) --embedding $(EMBEDDING)

# The Node client's dependencies, from its lockfile, again whenever its manifest or lock changes.
NODE_CLIENT := clients/node
$(NODE_CLIENT)/node_modules/.npm-ci: $(NODE_CLIENT)/package.json $(NODE_CLIENT)/package-lock.json
	cd $(NODE_CLIENT) && npm ci --no-audit --no-fund
	touch $@

# The agent hosts tests/hosts runs for real (Claude Code, Codex), pinned in their own lockfile.
HOSTS_NPM := tests/hosts/npm
$(HOSTS_NPM)/node_modules/.npm-ci: $(HOSTS_NPM)/package.json $(HOSTS_NPM)/package-lock.json
	cd $(HOSTS_NPM) && npm ci --no-audit --no-fund
	touch $@

# Debian packages the tests drive for real (we run as root): Chromium for tests/browser
# (Playwright drives it and never downloads a browser), and podman, runc and mmdebstrap for
# tests/e2e/test_container.py, which builds the Dockerfile and runs the image
# (scripts/container.py says why each).
SYSTEM_TOOLS := /usr/bin/chromium /usr/bin/podman /usr/sbin/runc /usr/bin/mmdebstrap
$(SYSTEM_TOOLS) &:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap

# The OceanBase half of the suite runs on a real seekdb server that scripts/seekdb.py starts on
# 127.0.0.1 with its own data directory and stops afterwards, also when tests fail.
# scripts/run_tests.py runs that half, the image's build and run, the rest of pytest and the
# Node client's tests side by side (they mostly wait), each one's output whole as it ends.
SEEKDB_DIR ?= .seekdb
test: lint $(SYSTEM_TOOLS) $(NODE_CLIENT)/node_modules/.npm-ci $(HOSTS_NPM)/node_modules/.npm-ci
	$(BIN)/python scripts/seekdb.py run --dir $(SEEKDB_DIR)/test -- $(BIN)/python scripts/run_tests.py

# The quick tier, to run every few minutes (~1 min on 2 cores): tests/unit and tests/conformance
# on SQLite, in process. It leaves out lint, the OceanBase backend (no seekdb), everything that
# starts a process (tests/e2e, tests/robustness and the few unit tests tests/conftest.py marks
# `spawn`; tests/spawn_guard.py fails an unmarked one), the real host CLIs and Node's npm test.
# make test stays the whole truth.
test-fast: $(VENV)/.dev
	$(BIN)/python -m pytest -q -p tests.spawn_guard -m "not oceanbase and not spawn and not hosts" tests/unit tests/conformance

lint: $(VENV)/.dev
	$(BIN)/buf lint
	$(BIN)/ruff check service clients/python tests bench scripts
	$(BIN)/ruff format --check service clients/python tests bench scripts
	$(BIN)/mypy
	$(BIN)/hadolint Dockerfile

# Both clients' generated code from proto/: Python (generated/) and the Node client's types.
proto: $(VENV)/.dev $(NODE_CLIENT)/node_modules/.npm-ci
	rm -rf generated/powercontext
	$(BIN)/python scripts/gen_proto.py generated
	cd $(NODE_CLIENT) && npm run --silent generate

# The default run (both backends, 10,000 entries) takes about 15 min on 2 cores; the
# 100,000-entry scenarios are optional: make bench BENCH_ARGS=--large (~30 min more).
# The history replay (100 x Changes since 0 over 1,500 revisions on SQLite) adds ~2 min; skip
# it with BENCH_ARGS="--history-revisions 0".
BENCH_ARGS ?=
bench: $(VENV)/.dev
	$(BIN)/python -m bench $(BENCH_ARGS)

# A local seekdb (OceanBase) to serve on: prints its DSN; data stays in $(SEEKDB_DIR)/serve.
seekdb-start: $(VENV)/.dev
	$(BIN)/python scripts/seekdb.py start --dir $(SEEKDB_DIR)/serve

seekdb-stop: $(VENV)/.dev
	$(BIN)/python scripts/seekdb.py stop --dir $(SEEKDB_DIR)/serve

verify: $(VENV)/.runtime
	$(BIN)/powercontext-memory verify --database $(DB)

# The image alone: build it from the Dockerfile and check it running (~2 min cold).
container-test: $(VENV)/.dev $(SYSTEM_TOOLS)
	$(BIN)/python -m pytest -q -m container tests/e2e/test_container.py

clean:
	-$(PYTHON) scripts/container.py clean
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache $(SEEKDB_DIR) $(NODE_CLIENT)/node_modules $(NODE_CLIENT)/dist
