# fcache top-level Makefile.
#   make            build the module (against KDIR) and fcachectl
#   make check      install missing packages, build, run host + guest tests
#   make demo       install missing packages, build, boot the testbed and
#                   run the OLTP before/after benchmark (DEMO_ARGS=--quick;
#                   DEMO_ROUNDS=N: runs per configuration, default 2)
#   make install    install module (+DKMS source), fcachectl, man page, units
#
# KDIR: the kernel build tree; defaults to the running kernel's, else that
# of the newest /boot/vmlinuz-* with a build tree (the kernel the guest
# boots, tests/vm/run-guest.sh), else the newest under /lib/modules.  Header
# flavours without an image (`make buildcheck` installs -cloud and -rt)
# must not become the default: their modules do not load in the guest.

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; if [ -d $$d ]; then echo $$d; exit 0; fi; \
	for k in $$(ls /boot/vmlinuz-* 2>/dev/null | sed 's,.*/vmlinuz-,,' | sort -V -r); do \
		if [ -d /lib/modules/$$k/build ]; then echo /lib/modules/$$k/build; exit 0; fi; \
	done; ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
export KDIR

.PHONY: all module userspace deps check demo install clean unit lint

all: module userspace

deps:
	@sh $(TOP)/scripts/deps.sh

module:
	@test -n "$(KDIR)" || { echo "fcache: no kernel build tree; install linux-headers-amd64 or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

userspace:
	$(MAKE) -C $(TOP)/userspace

include $(wildcard $(TOP)/mk/*.mk)

# check's and demo's builds run a job a CPU
JOBS := -j$(shell nproc 2>/dev/null || echo 2)

check: deps
	$(MAKE) $(JOBS) all
	$(MAKE) $(JOBS) fi-module
	$(MAKE) $(JOBS) fclog-module
	@sh $(TOP)/tests/run-all.sh

# every configuration runs DEMO_ROUNDS times in alternating order; the report
# gives medians and their spread (bench compare --rounds)
DEMO_ROUNDS ?= 2

# the demo needs fewer packages than check (scripts/deps.sh demo); the build
# runs a job a CPU
demo:
	@sh $(TOP)/scripts/deps.sh demo
	$(MAKE) $(JOBS) all
	@sh $(TOP)/tests/vm/demo.sh $(DEMO_ARGS) --rounds $(DEMO_ROUNDS)

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	-$(MAKE) -C $(TOP)/userspace clean
	rm -rf $(TOP)/build

endif
