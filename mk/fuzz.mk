# libFuzzer targets (included by the top-level Makefile; not part of `make check`).
#   make fuzz           install clang if missing, build tests/fuzz/fuzz_*.c with
#                       -fsanitize=fuzzer,address,undefined and run each target
#                       for FUZZ_RUNS executions (default 1000000) from its
#                       seed corpus tests/fuzz/corpus/<target>/
#   make -j3 fuzz       the same, the three targets side by side
#   make fuzz-build     build only
#   make fuzz-corpus    regenerate the seed corpora (tests/fuzz/mkcorpus.sh)
#   make fuzz-replay    no libFuzzer, no clang: each target built with cc and
#                       ASan/UBSan around tests/fuzz/replay_main.c and run
#                       once over its seed corpus (suite 10 of make check:
#                       the harnesses' invariants still hold on the seeds)
# New inputs go to build/fuzz/work/<target>/ (the committed corpus is only
# read); a crash leaves build/fuzz/<target>-crash-* and fails the run.
# docs/testing-details.md ("Fuzzing") has the figures of the last full run.

FUZZ_CC ?= clang
FUZZ_RUNS ?= 1000000
FUZZ_DIR := $(TOP)/build/fuzz
FUZZ_SRC := $(TOP)/tests/fuzz
FUZZ_TARGETS := fuzz_parse fuzz_check fuzz_format fuzz_olog
# what the libFuzzer build and the replay build (fuzz-replay) share
FUZZ_COMMON := -g -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
	-Wall -Wextra -Werror -Wno-missing-field-initializers -I$(TOP)/include -I$(TOP)/userspace/lib
FUZZ_CFLAGS := -O2 -fsanitize=fuzzer,address,undefined $(FUZZ_COMMON) \
	-fsanitize-coverage-ignorelist=$(FUZZ_SRC)/nocov.txt
FUZZ_PKGS := clang libclang-rt-dev

# per target: extra sources and the largest input
FUZZ_fuzz_parse_SRC := $(TOP)/engine/fc_parse.c
FUZZ_fuzz_parse_LEN := 256
FUZZ_fuzz_check_SRC := $(wildcard $(TOP)/userspace/lib/fc_check*.c) \
	$(addprefix $(TOP)/userspace/lib/,fc_dev.c fc_json.c) $(TOP)/engine/fc_format.c
FUZZ_fuzz_check_LEN := 40000
FUZZ_fuzz_format_SRC := $(TOP)/engine/fc_format.c
FUZZ_fuzz_format_LEN := 200
FUZZ_fuzz_olog_SRC := $(TOP)/engine/fc_format.c $(TOP)/engine/fc_olog.c
FUZZ_fuzz_olog_LEN := 600

.PHONY: fuzz fuzz-deps fuzz-build fuzz-corpus

fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)

# one rule per target, so that `make -j3 fuzz` runs them side by side
fuzz-run-%: fuzz-build
	@mkdir -p $(FUZZ_DIR)/work/$*
	@echo "fuzz: $*, $(FUZZ_RUNS) runs (log build/fuzz/$*.log)"
	@if ! $(FUZZ_DIR)/$* -runs=$(FUZZ_RUNS) -max_len=$(FUZZ_$*_LEN) \
		-artifact_prefix=$(FUZZ_DIR)/$*- -print_final_stats=1 \
		$(FUZZ_DIR)/work/$* $(FUZZ_SRC)/corpus/$* >$(FUZZ_DIR)/$*.log 2>&1; then \
		tail -n 40 $(FUZZ_DIR)/$*.log; \
		echo "fuzz: $* FAILED (crash input: build/fuzz/$*-*)"; exit 1; \
	fi
	@echo "fuzz: $*: $$(awk '/^stat::number_of_executed_units/ {print $$2}' \
		$(FUZZ_DIR)/$*.log) executions, 0 crashes ($$(grep -E '^Done' $(FUZZ_DIR)/$*.log))"

fuzz-deps:
	@if ! command -v $(FUZZ_CC) >/dev/null 2>&1 || \
	    ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' | \
	      $(FUZZ_CC) -x c -fsanitize=fuzzer,address,undefined -o /dev/null - >/dev/null 2>&1; then \
		cmd="apt-get install -y --no-install-recommends $(FUZZ_PKGS)"; \
		if [ "$$(id -u)" -ne 0 ]; then \
			echo "fuzz: clang with libFuzzer is missing; run as root:  apt-get update && $$cmd" >&2; \
			exit 1; \
		fi; \
		echo "fuzz: installing $(FUZZ_PKGS)" >&2; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
		DEBIAN_FRONTEND=noninteractive $$cmd >&2; \
	fi

fuzz-build: fuzz-deps $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)

$(FUZZ_DIR)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/nocov.txt $(wildcard $(TOP)/include/*.h $(TOP)/engine/*.[ch] $(TOP)/userspace/lib/*.[ch])
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_fuzz_$*_SRC)

fuzz-corpus:
	@sh $(FUZZ_SRC)/mkcorpus.sh

REPLAY_CC ?= cc
REPLAY_DIR := $(TOP)/build/fuzz-replay
REPLAY_CFLAGS := -O1 -fsanitize=address,undefined $(FUZZ_COMMON)

.PHONY: fuzz-replay

fuzz-replay: $(FUZZ_TARGETS:%=$(REPLAY_DIR)/%)
	@for t in $(FUZZ_TARGETS); do \
		if $(REPLAY_DIR)/$$t $(FUZZ_SRC)/corpus/$$t >$(REPLAY_DIR)/$$t.log 2>&1; then \
			echo "PASS: fuzz-replay/$$t ($$(tail -n 1 $(REPLAY_DIR)/$$t.log))"; \
		else \
			echo "FAIL: fuzz-replay/$$t ($$(grep -m 1 -E 'invariant|ERROR|runtime error' $(REPLAY_DIR)/$$t.log || tail -n 1 $(REPLAY_DIR)/$$t.log))"; \
		fi; \
	done

$(REPLAY_DIR)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/replay_main.c $(wildcard $(TOP)/include/*.h $(TOP)/engine/*.[ch] $(TOP)/userspace/lib/*.[ch])
	@mkdir -p $(REPLAY_DIR)
	@$(REPLAY_CC) $(REPLAY_CFLAGS) -o $@ $< $(FUZZ_SRC)/replay_main.c $(FUZZ_fuzz_$*_SRC)
