# Strata — the two commands: `make run` and `make test` (see README.md).
JOBS      ?= $(shell nproc)
REL_DIR   := build/release
TEST_DIR  := build/asan
TSAN_DIR  := build/tsan
DATA_DIR  ?= ./strata-data
PORT      ?= 5433

.PHONY: all run test deps build release asan tsan bench bench-quick soak fuzz format clean

all: release

deps:
	@scripts/deps.sh test

release:
	@scripts/deps.sh run
	@cmake -S . -B $(REL_DIR) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(REL_DIR) -j $(JOBS)

asan:
	@scripts/deps.sh test
	@cmake -S . -B $(TEST_DIR) -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON >/dev/null
	@cmake --build $(TEST_DIR) -j $(JOBS)

# Debug + ThreadSanitizer in build/tsan: the server and the unit tests the tsan suite runs.
tsan:
	@scripts/deps.sh test
	@cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DSTRATA_TSAN=ON >/dev/null
	@cmake --build $(TSAN_DIR) -j $(JOBS) --target $$(tests/tsan/run.sh --targets)

build: release

# Build a release binary and serve on 127.0.0.1:$(PORT) with the embedded store in $(DATA_DIR).
run: release
	@echo "Strata: serving on 127.0.0.1:$(PORT), data in $(DATA_DIR)"
	@echo "Connect with: psql -h 127.0.0.1 -p $(PORT) -U postgres"
	@exec $(REL_DIR)/server/strata --listen 127.0.0.1 --port $(PORT) --data-dir $(DATA_DIR)

# Build Debug + ASan/UBSan (and build/tsan for the tsan suite) and run every test suite;
# one summary line per suite.
test: asan tsan
	@tests/run_all.sh $(TEST_DIR)

bench:
	@bench/run.sh full

bench-quick:
	@bench/run.sh quick

soak: asan tsan
	@tests/run_all.sh $(TEST_DIR) --long

# libFuzzer targets (clang, build/fuzz), each for FUZZ_SECONDS (default 3600); see docs/reliability.md.
fuzz: deps
	@fuzz/run.sh --long

format:
	@find util kvstore types catalog index sql wire server tests bench -name '*.[ch]' | xargs clang-format -i

clean:
	rm -rf build
