# Long form of `make check` (its own target, as check-crash and check-debug):
#   make check-long   every suite with its full settings (FC_LONG=1): the smoke
#                     power cut of suite 20, 400 replayed crash points in suite
#                     36 (make check: 100), the whole fault matrix of suite 38
#                     (every I/O index up to 12 plus 4 sampled; make check: up
#                     to 4 plus 1), and slub_debug=FZPU in the guest (make
#                     check: FZP).  ~1 h on an idle 2-core machine.
.PHONY: check-long

check-long: deps
	$(MAKE) all
	$(MAKE) fi-module
	$(MAKE) fclog-module
	@FC_LONG=1 FC_SLUB_DEBUG=FZPU sh $(TOP)/tests/run-all.sh
