# Replay at every flush point (included by the top-level Makefile).
#   make check-crash [CRASH_POINTS=N]   at least N (2000) dm-log-writes crash
#                                       points replayed and checked in the
#                                       guest; ends with the line
#   "crash points: <n> replayed, <l> lost, <s> stale, <c> check failures"
#   make crash-tools                    build/crash/{lw_replay,lw_mklog,cw_work}
#   (make fclog-module, mk/fclog.mk: the walk's logging target)
# See docs/TESTING.md, "Replay at every flush point".

CRASH_POINTS ?= 2000

.PHONY: check-crash crash-tools

crash-tools:
	@sh $(TOP)/tests/crash/build.sh

check-crash: deps
	$(MAKE) all
	$(MAKE) fi-module
	$(MAKE) fclog-module
	@sh $(TOP)/tests/crash/build.sh
	@sh $(TOP)/tests/crash/run-crash.sh $(CRASH_POINTS)
