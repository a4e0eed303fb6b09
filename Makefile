# Colosseum: `make help` lists the targets.
CARGO ?= cargo
SHARED_EXAMPLES := $(wildcard ../shared/conformance/examples/*.json)

.PHONY: help build run test lint unit conformance bench selfplay fmt clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

build: ## Build everything (debug)
	$(CARGO) build --workspace --all-targets

run: ## Play GOPS in the terminal against the strong bot
	$(CARGO) run --release -q -p colosseum -- play --game gops --vs bot

test: lint unit conformance ## Everything CI runs: format, lints, all tests, the conformance scripts

lint: ## rustfmt and clippy, warnings are errors
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

unit: ## All Rust tests (unit, property, leak, conformance, records)
	$(CARGO) test --workspace --all-targets

conformance: ## Every script in tests/conformance (and ../shared's examples) through the CLI, checked
	$(CARGO) build -q -p colosseum
	python3 tests/conformance/check.py ./target/debug/colosseum tests/conformance/*.json tests/conformance/shared/*.json $(SHARED_EXAMPLES)

bench: ## Criterion benchmarks (release)
	$(CARGO) bench -p bots

selfplay: ## The selfplay figures of docs/benchmarks.md
	$(CARGO) build --release -q -p colosseum
	./target/release/colosseum selfplay --game gops --matches 1000000 --seed 1
	./target/release/colosseum selfplay --game gops --matches 10000 --seed 1 --bot strong --vs random
	./target/release/colosseum selfplay --game gops --matches 10000 --seed 1 --bot strong --vs prize

fmt: ## Format the code
	$(CARGO) fmt --all

clean: ## Remove build output
	$(CARGO) clean
