# Long form of `make check` (its own target, as check-crash and check-debug):
#   make check-long   every suite with its full settings (FC_LONG=1): the smoke
#                     power cut of suite 20, 800 + 200 mirrored replayed crash
#                     points in suite 36 and its flush_one_leg mutant (make
#                     check: 40 + 12), 40 rounds of each read-ahead race of
#                     suite 35 (make check: 16), the whole fault matrix of
#                     suite 38 (every I/O index up to 12 plus 4 sampled; make
#                     check: up to 4 plus 1), and slub_debug=FZPU in the guest
#                     (make check: FZP).  ~1 h on an idle 2-core machine.
.PHONY: check-long

check-long: deps
	$(MAKE) all
	$(MAKE) fi-module
	$(MAKE) fclog-module
	@FC_LONG=1 FC_SLUB_DEBUG=FZPU sh $(TOP)/tests/run-all.sh
