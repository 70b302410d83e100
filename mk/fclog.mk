# The crash walk's test target (included by the top-level Makefile).
#   make fclog-module   build/fclog/dm-fclog.ko from tests/crash/kmod/dm-fclog.c:
#                       several devices, each with its own volatile write
#                       cache, logged in one dm-log-writes-format log
#                       (tests/crash/replay-guest.sh).  Test-only: never
#                       installed.

FCLOG_DIR := $(TOP)/build/fclog

.PHONY: fclog-module

fclog-module:
	@test -n "$(KDIR)" || { echo "fclog-module: no kernel build tree; install linux-headers-amd64 or set KDIR=" >&2; exit 1; }
	@mkdir -p $(FCLOG_DIR)
	@cmp -s $(TOP)/tests/crash/kmod/dm-fclog.c $(FCLOG_DIR)/dm-fclog.c || \
		cp $(TOP)/tests/crash/kmod/dm-fclog.c $(FCLOG_DIR)/dm-fclog.c
	@echo 'obj-m := dm-fclog.o' >$(FCLOG_DIR)/Kbuild.new; \
	if cmp -s $(FCLOG_DIR)/Kbuild.new $(FCLOG_DIR)/Kbuild; then rm -f $(FCLOG_DIR)/Kbuild.new; \
	else mv $(FCLOG_DIR)/Kbuild.new $(FCLOG_DIR)/Kbuild; fi
	$(MAKE) -C $(KDIR) M=$(FCLOG_DIR) W=1 modules
