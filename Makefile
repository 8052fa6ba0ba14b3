# SPDX-License-Identifier: Apache-2.0
# Top-level entry points: set up dependencies, configure, build, then run / test / bench.
MAKEFLAGS += --no-print-directory
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
CTEST_FLAGS ?= --output-on-failure -j$(JOBS)

.PHONY: all deps configure build run test bench nightly fuzz package linux clean

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

# The nightly: the co-simulation on the RTL's coverage build (20 seeds x 5 M cycles; a cover
# point never hit fails it), the deep formal proofs, and the rest labelled nightly; then the
# coverage table ($(BUILD)/nightly/coverage/, html/index.html) and the formal report.
# SLURM=1: the co-simulation seeds run as a Slurm job array (scripts/nightly-slurm.sh, the same
# seeds and cycles as the cosim_nightly test, one merged JUnit report and coverage); the rest
# runs here.
NIGHTLY_REPORTS = cat_if() { [ -f "$$1" ] && { echo "== $$1"; cat "$$1"; }; true; }; \
	cat_if $(BUILD)/nightly/coverage/coverage.txt; cat_if $(BUILD)/nightly/formal.txt
nightly: build
ifeq ($(SLURM),1)
	@scripts/nightly-slurm.sh $(BUILD) --seed 1001 --seeds 20 --cycles 5000000 \
	  --junit $(BUILD)/nightly/cosim-junit.xml --waves-dir $(BUILD)/nightly/waves \
	  --coverage $(BUILD)/nightly/coverage --require-covers $(if $(SLURM_OPT),--slurm-opt "$(SLURM_OPT)"); st=$$?; \
	  cd $(BUILD) && ctest $(CTEST_FLAGS) -L nightly -E '^cosim_nightly$$' || st=1; cd $(CURDIR); \
	  $(NIGHTLY_REPORTS); exit $$st
else
	@cd $(BUILD) && ctest $(CTEST_FLAGS) -L nightly; st=$$?; cd $(CURDIR); $(NIGHTLY_REPORTS); exit $$st
endif

fuzz: build
	@scripts/fuzz.sh $(BUILD)

# The full-system SPE guest (docs/linux.md): qemu-system-aarch64 from Debian's source with
# qemu/patches, the Debian arm64 kernel and user land, both cached in ~/.cache/armprof; the
# `linux` tests run once this is made.
linux: build
	@scripts/install-deps.sh --linux
	@scripts/linux-setup.sh $(BUILD)

# The Debian packages (CPack, cmake/ArmprofPackage.cmake): $(BUILD)/<package>_<version>_<arch>.deb,
# `sudo apt install ./$(BUILD)/*.deb`.
package: build
	@cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) out
