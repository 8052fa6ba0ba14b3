# SPDX-License-Identifier: Apache-2.0
# Top-level entry points: set up dependencies, configure, build, then run / test / bench.
MAKEFLAGS += --no-print-directory
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
CTEST_FLAGS ?= --output-on-failure -j$(JOBS)

.PHONY: all deps configure build run test bench nightly fuzz package clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

run: build
	@scripts/run-default.sh $(BUILD)

test: build
	@cd $(BUILD) && SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ctest $(CTEST_FLAGS) -LE nightly

bench: build
	@scripts/bench.sh $(BUILD)

nightly: build
	@cd $(BUILD) && ctest $(CTEST_FLAGS) -L nightly

fuzz: build
	@scripts/fuzz.sh $(BUILD)

# The Debian package (CPack): $(BUILD)/armprof_<version>_<arch>.deb, `apt install ./$(BUILD)/armprof_*.deb`.
package: build
	@cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) out
