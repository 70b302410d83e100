# Kernel module lint targets (included by the top-level Makefile).
#   make lint          checkpatch (if the kernel source is installed),
#                      a W=1 build and a sparse (C=2) build, all must be clean
# `make check` does not depend on this (CI has no /usr/src).

CHECKPATCH ?= $(firstword $(wildcard /usr/src/linux-source-*/scripts/checkpatch.pl))
KMOD_SRC := $(wildcard $(TOP)/kmod/*.c $(TOP)/kmod/*.h $(TOP)/engine/*.c $(TOP)/engine/*.h)

.PHONY: lint lint-checkpatch lint-w1 lint-sparse

lint: lint-checkpatch lint-w1 lint-sparse

lint-checkpatch:
	@if [ -z "$(CHECKPATCH)" ] || [ ! -f "$(CHECKPATCH)" ]; then \
		echo "lint: checkpatch.pl not found (install linux-source); skipped"; \
	else \
		echo "lint: checkpatch"; \
		perl $(CHECKPATCH) --no-tree --quiet --show-types -f $(KMOD_SRC) || exit 1; \
	fi

# W=1 builds a copy of the sources under build/lint so that the module in
# the tree (maybe being loaded by a guest test right now) is never removed.
LINT_DIR := $(TOP)/build/lint
lint-w1:
	@test -n "$(KDIR)" || { echo "lint: no kernel build tree" >&2; exit 1; }
	@echo "lint: W=1 build"
	@rm -rf $(LINT_DIR) && mkdir -p $(LINT_DIR)
	@cp -r $(TOP)/Kbuild $(TOP)/kmod $(TOP)/engine $(TOP)/include $(LINT_DIR)/
	@$(MAKE) -C $(KDIR) M=$(LINT_DIR) W=1 modules 2>&1 | tee $(TOP)/build/lint-w1.log | \
		grep -E 'warning:|error:' && exit 1 || true

lint-sparse: lint-w1
	@test -n "$(KDIR)" || { echo "lint: no kernel build tree" >&2; exit 1; }
	@if ! command -v sparse >/dev/null 2>&1; then \
		echo "lint: sparse not installed; skipped"; \
	else \
		echo "lint: sparse (C=2)"; \
		$(MAKE) -C $(KDIR) M=$(LINT_DIR) C=2 modules 2>&1 | tee $(TOP)/build/lint-sparse.log | \
			grep -E 'warning:|error:' && exit 1 || true; \
	fi
