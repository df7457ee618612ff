# Shelfline front door. `make import CSV=...` and `make test` are the README's two commands.
SWIFT ?= swift
# The shipped example is matched against its sample catalog alone (examples/pipeline.json), so it
# runs without a network; any other export uses pipeline.json: the catalog, then Open Library.
CONFIG ?= $(if $(filter %examples/goodreads_library_export.csv,$(CSV)),examples/pipeline.json,pipeline.json)
WORKSPACE ?= ./var
BIN := .build/release
# One build for the executables and the tests: release with testability, so `make test` after
# `make import` compiles only the test targets instead of a second (debug) build of every package.
# Measured (docs/performance.md, "Build"): a fresh clone's `make test` after `make import` drops by
# the whole debug build; the import's CPU costs about 3 % more.
BUILD_FLAGS := -c release -Xswiftc -enable-testing
PREFIX ?= /usr/local
DESTDIR ?=
# The installed executables: add one here when a new executable lands.
EXECUTABLES := shelfline shelfline-parse shelfline-dedupe shelfline-lookup shelfline-merge shelfline-render shelfline-push
# System headers the build needs, each with the Debian package that provides it.
HEADERS := zlib.h:zlib1g-dev libdeflate.h:libdeflate-dev sqlite3.h:libsqlite3-dev openssl/evp.h:libssl-dev
INCLUDE_DIRS ?= /usr/include /usr/include/$(shell gcc -dumpmachine 2>/dev/null) /usr/local/include

.PHONY: help check-deps build build-tests import test lint generate bench bench-serve beer-queue install uninstall clean

# `make` alone: what to run first.
help:
	@echo "Shelfline. To start:"
	@echo "  make import CSV=examples/goodreads_library_export.csv   # build, then import the example offline"
	@echo "  make test                                               # run every test"
	@echo "Also: make build | lint | generate | bench | beer-queue | install PREFIX=/usr/local | uninstall | clean"

# Names the missing package and the command that installs it, before the compiler can fail on a header
# (or the Fields build plugin on a missing python3).
check-deps:
	@missing=""; for pair in $(HEADERS); do \
	    header=$${pair%%:*}; package=$${pair##*:}; found=""; \
	    for dir in $(INCLUDE_DIRS); do [ -f "$$dir/$$header" ] && found=1; done; \
	    [ -n "$$found" ] || missing="$$missing $$package"; \
	done; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	if [ -n "$$missing" ]; then \
	    echo "missing system libraries:$$missing" >&2; \
	    echo "install them with: sudo apt-get update && sudo apt-get install$$missing" >&2; \
	    exit 1; \
	fi

build: check-deps
	$(SWIFT) build $(BUILD_FLAGS)

import: build
	@test -n "$(CSV)" || { echo "usage: make import CSV=FILE [WORKSPACE=DIR]" >&2; exit 64; }
	$(BIN)/shelfline run --config $(CONFIG) --workspace $(WORKSPACE) --csv "$(CSV)"

# The tests' build alone (bench/build times it).
build-tests: check-deps
	$(SWIFT) build $(BUILD_FLAGS) --build-tests

test: build-tests
	SHELFLINE_BIN=$(CURDIR)/$(BIN) $(SWIFT) test $(BUILD_FLAGS) --skip-build

# The committed .swift-format, applied by the tool (`swift format format -i -r Sources Tests Plugins Package.swift`):
# any warning fails, so CI keeps the tree formatted.
lint:
	$(SWIFT) format lint --strict --configuration .swift-format -r Sources Tests Plugins Package.swift

# docs/library-book.schema.json and docs/export.md's "not carried" rows, from the one table of fields
# (codegen/fields.json; docs/ARCHITECTURE.md, "Adding a field"); the build writes the per-field code
# from it (Plugins/Fields). GeneratedFieldsTests fails while the docs are stale.
generate:
	python3 codegen/fields.py

bench: build
	bash bench/run.sh
	$(MAKE) bench-serve

# `shelfline-push serve` alone: PUT /v1/tokens requests/s, p50/p99 latency, RSS idle and under load.
bench-serve: build
	bash bench/serve/run.sh

# Coverage-guided fuzzing (libFuzzer): each target for FUZZ_SECONDS (fuzz/README.md).
FUZZ_SECONDS ?= 60
FUZZ_SEED ?=
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) bash fuzz/run.sh

beer-queue: build
	$(BIN)/shelfline-render beer-queue --poll --config $(CONFIG) --workspace $(WORKSPACE) --quiet
	$(BIN)/shelfline-push send --if-configured --config $(CONFIG) --workspace $(WORKSPACE) --quiet

# The executables in $(PREFIX)/bin and their bash, zsh and fish completions (swift-argument-parser).
# NO_BUILD=1 installs what $(BIN) already holds.
install: $(if $(NO_BUILD),,build)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
	    "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	for exe in $(EXECUTABLES); do \
	    install -m 0755 "$(BIN)/$$exe" "$(DESTDIR)$(PREFIX)/bin/$$exe" || exit 1; \
	    "$(BIN)/$$exe" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$exe" || exit 1; \
	    "$(BIN)/$$exe" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$exe" || exit 1; \
	    "$(BIN)/$$exe" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$exe.fish" || exit 1; \
	done

uninstall:
	for exe in $(EXECUTABLES); do \
	    rm -f "$(DESTDIR)$(PREFIX)/bin/$$exe" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$exe" \
	        "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$exe" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$exe.fish"; \
	done

clean:
	rm -rf .build
