# Tactus build commands. `make demo` and `make test` work from a fresh clone on Debian 12.
# Both install missing Debian packages (scripts/deps.txt), and are fast when nothing changed.
JOBS      ?= 2
WERROR    ?= 0
BUILD     := build
BUILD_ASAN:= build-asan
BUILD_FUZZ:= build-fuzz
FUZZ_SECONDS ?= 20
DEMO_OUT  := out/default
CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release

ifeq ($(WERROR),1)
  CMAKE_FLAGS += -DTACTUS_WARNINGS_AS_ERRORS=ON
else
  CMAKE_FLAGS += -DTACTUS_WARNINGS_AS_ERRORS=OFF
endif

.PHONY: demo test test-sanitize test-fuzz check-builds soak box-drop-plot traction-map setup data build clean help

help:
	@echo "make demo           install deps, build Release, run scenes/default.json into $(DEMO_OUT)/"
	@echo "make test           install deps, fetch data, build, run the test suite (WERROR=1: warnings are errors)"
	@echo "make test-sanitize  ASan + UBSan build in $(BUILD_ASAN)/ and the test suite"
	@echo "make test-fuzz      clang libFuzzer targets, FUZZ_SECONDS (default 20) each, ASan + UBSan, in $(BUILD_FUZZ)/"
	@echo "make check-builds   gcc, clang, portable-path and Debug builds in build-check/: tests, every scene's hash, must agree"
	@echo "make soak           every scene at 10x its length under ASan + UBSan; no errors, no heap growth"
	@echo "make box-drop-plot  seed 004 figure 9: box_drop with both contact methods, plotted to out/box_drop/box_drop.png"
	@echo "make traction-map   seed 002: qr_press run, its traction map drawn to out/qr_press/traction_map.png"
	@echo "make clean          remove build trees and outputs"

setup:
	@bash scripts/setup.sh

data: setup
	@bash scripts/fetch_data.sh

# Reconfigure only when the cache is missing or the requested flags changed.
build: setup
	@if [ ! -f $(BUILD)/CMakeCache.txt ] || [ "$$(cat $(BUILD)/.tactus-flags 2>/dev/null)" != "$(CMAKE_FLAGS)" ]; then \
	  cmake -S . -B $(BUILD) $(CMAKE_FLAGS) && echo "$(CMAKE_FLAGS)" > $(BUILD)/.tactus-flags; fi
	@cmake --build $(BUILD) -j$(JOBS)

demo: data build
	@mkdir -p $(DEMO_OUT)
	@./$(BUILD)/tactus run scenes/default.json --out $(DEMO_OUT)
	@if ./$(BUILD)/tactus render --help > /dev/null 2>&1; then \
	  (./$(BUILD)/tactus render scenes/default.json --out $(DEMO_OUT)/final.png && echo "final frame: $(DEMO_OUT)/final.png") || echo "(final-frame render failed)"; fi
	@echo
	@echo "Output: $(DEMO_OUT)/default.pvd (open in ParaView), $(DEMO_OUT)/metrics.csv"

test: data build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-sanitize: data
	@if [ ! -f $(BUILD_ASAN)/CMakeCache.txt ]; then \
	  cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACTUS_SANITIZE=ON -DTACTUS_WARNINGS_AS_ERRORS=ON; fi
	@cmake --build $(BUILD_ASAN) -j$(JOBS)
	@cd $(BUILD_ASAN) && ctest --output-on-failure -j$(JOBS)

box-drop-plot: build
	@bash scripts/plot_box_drop.sh $(BUILD) out/box_drop

traction-map: build
	@$(BUILD)/tactus run scenes/qr_press.json --out out/qr_press
	@python3 tools/quasi/traction_map.py out/qr_press/tractions.csv out/qr_press/traction_map.png

soak: data
	@if [ ! -f $(BUILD_ASAN)/CMakeCache.txt ]; then \
	  cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACTUS_SANITIZE=ON -DTACTUS_WARNINGS_AS_ERRORS=ON; fi
	@cmake --build $(BUILD_ASAN) -j$(JOBS)
	@bash scripts/soak.sh $(BUILD_ASAN) 10

# Seed corpora: tests/fuzz/corpus/<target>/; crashes land in $(BUILD_FUZZ)/tests/fuzz-artifacts/.
test-fuzz: setup
	@if [ ! -f $(BUILD_FUZZ)/CMakeCache.txt ]; then \
	  CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACTUS_SANITIZE=ON \
	    -DTACTUS_BUILD_FUZZ=ON -DTACTUS_BUILD_VIEWER=OFF -DTACTUS_WARNINGS_AS_ERRORS=ON; fi
	@cmake -S . -B $(BUILD_FUZZ) -DTACTUS_FUZZ_SECONDS=$(FUZZ_SECONDS) > /dev/null
	@cmake --build $(BUILD_FUZZ) -j$(JOBS) --target fuzz_targets
	@cd $(BUILD_FUZZ) && ctest -L fuzz --output-on-failure -j$(JOBS)

# gcc, clang and gcc with every portable (non-AVX2) path: every scene's 30-step hash must agree.
check-builds: data
	@JOBS=$(JOBS) bash tools/check_builds.sh

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ) build-check out
