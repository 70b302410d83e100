# Long form of `make check` (its own target, as check-crash and check-debug):
#   make check-long   every suite with its full settings (FC_LONG=1): the smoke
#                     power cut of suite 20, 400 replayed crash points in suite
#                     36 (make check: 100), the whole fault matrix of suite 38
#                     (every I/O index up to 12 plus 4 sampled; make check: up
#                     to 4 plus 1).  ~1 h on an idle 2-core machine.
.PHONY: check-long

check-long: deps
	$(MAKE) all
	$(MAKE) fi-module
	@FC_LONG=1 sh $(TOP)/tests/run-all.sh
