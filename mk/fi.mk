# Fault-injection build of the module (included by the top-level Makefile).
#   make fi-module   build/fi/dm-fcache.ko: the module built with
#                    -DFC_FAULT_INJECT, which adds the module parameters
#                    fault_md_io (write N: the N-th metadata I/O from then on
#                    fails with -EIO) and md_io_count (kmod/fc_mdio.c).
#                    Used by tests/guest/fc_faultmatrix.sh (suite 38).
# The sources are copied under build/fi (as lint-w1 does), so the
# dm-fcache.ko at the top of the tree never has the hook and a guest test
# using it is never disturbed.  Only changed files are copied, so a rebuild
# recompiles only what changed.

FI_DIR := $(TOP)/build/fi
FI_SRC := $(wildcard $(TOP)/kmod/*.c $(TOP)/kmod/*.h $(TOP)/engine/*.c $(TOP)/engine/*.h \
	$(TOP)/include/*.h)

.PHONY: fi-module

fi-module:
	@test -n "$(KDIR)" || { echo "fi-module: no kernel build tree; install linux-headers-amd64 or set KDIR=" >&2; exit 1; }
	@mkdir -p $(FI_DIR)/kmod $(FI_DIR)/engine $(FI_DIR)/include
	@set -e; for f in $(patsubst $(TOP)/%,%,$(FI_SRC)); do \
		cmp -s $(TOP)/$$f $(FI_DIR)/$$f || cp $(TOP)/$$f $(FI_DIR)/$$f; \
	done; \
	for f in $(FI_DIR)/kmod/* $(FI_DIR)/engine/* $(FI_DIR)/include/*; do \
		case "$$f" in *.c|*.h) [ -f $(TOP)/$${f#$(FI_DIR)/} ] || rm -f "$$f" ;; esac; \
	done; \
	{ cat $(TOP)/Kbuild; echo '# fault-injection build (mk/fi.mk)'; \
	  echo 'ccflags-y += -DFC_FAULT_INJECT'; } >$(FI_DIR)/Kbuild.new; \
	if cmp -s $(FI_DIR)/Kbuild.new $(FI_DIR)/Kbuild; then rm -f $(FI_DIR)/Kbuild.new; \
	else mv $(FI_DIR)/Kbuild.new $(FI_DIR)/Kbuild; fi
	$(MAKE) -C $(KDIR) M=$(FI_DIR) modules
	@modinfo -F parm $(FI_DIR)/dm-fcache.ko | grep -q '^fault_md_io:' || \
		{ echo "fi-module: $(FI_DIR)/dm-fcache.ko has no fault_md_io parameter" >&2; exit 1; }
