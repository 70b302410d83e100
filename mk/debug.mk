# Debug-kernel test run (included by the top-level Makefile).
#   make check-debug   build Debian's 6.1 kernel with KASAN, lockdep and
#                      friends (once, cached in build/debug/), dm-fcache.ko
#                      against it, and run the guest suites on it
#                      (FC_SUITES, default "20 30 31 32 33 34 35").
# Not part of `make check`.  See docs/TESTING.md, "Debug kernel".

.PHONY: check-debug

check-debug: deps
	@sh $(TOP)/tests/vm/check-debug.sh
