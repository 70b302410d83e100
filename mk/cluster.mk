# Two hosts (included by the top-level Makefile; issue 37):
#   make check-cluster [CLUSTER_POINTS=N]   two QEMU guests sharing an origin
#                                           disk, each pool mirrored onto the
#                                           other host's flash over NVMe/TCP,
#                                           ocf:fcache:fcache run by Pacemaker;
#                                           the peer killed once under load,
#                                           then the volume's host N (10) times
#   ends with "failover points: <n> host kills, <l> acknowledged writes lost,
#   peer-loss stall <s> s".  See docs/CLUSTER.md, "Two hosts".

CLUSTER_POINTS ?= 10

.PHONY: check-cluster

check-cluster: deps
	$(MAKE) all
	@sh $(TOP)/tests/vm/check-cluster.sh $(CLUSTER_POINTS)
