# Shelfline front door. `make import CSV=...` and `make test` are the README's two commands.
SWIFT ?= swift
CONFIG ?= pipeline.json
WORKSPACE ?= ./var
BIN := .build/release
DEBUG_BIN := .build/debug

.PHONY: build import test bench beer-queue clean

build:
	$(SWIFT) build -c release

import: build
	@test -n "$(CSV)" || { echo "usage: make import CSV=FILE [WORKSPACE=DIR]" >&2; exit 64; }
	$(BIN)/shelfline run --config $(CONFIG) --workspace $(WORKSPACE) --csv "$(CSV)"

test:
	$(SWIFT) build --build-tests
	SHELFLINE_BIN=$(CURDIR)/$(DEBUG_BIN) $(SWIFT) test --skip-build --no-parallel

bench: build
	bash bench/run.sh

beer-queue: build
	$(BIN)/shelfline-render beer-queue --poll --config $(CONFIG) --workspace $(WORKSPACE) --quiet
	$(BIN)/shelfline-push send --if-configured --config $(CONFIG) --workspace $(WORKSPACE) --quiet

clean:
	rm -rf .build
