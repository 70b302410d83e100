# Build check of the module against every kernel header tree (included by the
# top-level Makefile; not part of `make check`: it installs packages).
#   make buildcheck    installs the missing header flavours (as root; else
#                      prints the apt-get command and checks what is there),
#                      builds the module with W=1 against each tree in a copy
#                      of the sources (build/buildcheck/<ver>), then compiles
#                      kmod/fc_compat.h against stub prototypes of both
#                      dm_io() flavours; any warning or error fails.  One
#                      line per tree.
#   BUILDCHECK_PKGS    header packages wanted (Debian 12: the 6.1 flavours)
#   BUILDCHECK_KDIRS   trees to build against (default /lib/modules/*/build)
#   BUILDCHECK_INSTALL=no  never install anything

BUILDCHECK_PKGS ?= linux-headers-amd64 linux-headers-cloud-amd64 linux-headers-rt-amd64
BUILDCHECK_INSTALL ?= yes
BUILDCHECK_KDIRS ?=
BUILDCHECK_DIR := $(TOP)/build/buildcheck

.PHONY: buildcheck buildcheck-headers buildcheck-trees buildcheck-compat

buildcheck: buildcheck-trees buildcheck-compat

buildcheck-headers:
	@missing=""; for p in $(BUILDCHECK_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ] || [ "$(BUILDCHECK_INSTALL)" = no ]; then \
		exit 0; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "buildcheck: installing$$missing"; mkdir -p $(TOP)/build; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing >$(TOP)/build/buildcheck-apt.log 2>&1 || \
			{ echo "buildcheck: apt-get failed (build/buildcheck-apt.log)" >&2; exit 1; }; \
	else \
		echo "buildcheck: not root; to check every flavour run: apt-get install --no-install-recommends$$missing"; \
	fi

# Each tree: a fresh copy of the sources, so the module in the tree (maybe
# being loaded by a guest test) is never touched.
buildcheck-trees: buildcheck-headers
	@trees="$(BUILDCHECK_KDIRS)"; \
	[ -n "$$trees" ] || trees=$$(ls -d /lib/modules/*/build 2>/dev/null | sort -V); \
	[ -n "$$trees" ] || { echo "buildcheck: no kernel build tree" >&2; exit 1; }; \
	fail=0; \
	for k in $$trees; do \
		case "$$k" in */build) ver=$$(basename "$$(dirname "$$k")") ;; \
		*) ver=$$(basename "$$k" | sed 's/^linux-headers-//') ;; esac; \
		d=$(BUILDCHECK_DIR)/$$ver; \
		rm -rf "$$d" && mkdir -p "$$d" && cp -r $(TOP)/Kbuild $(TOP)/kmod $(TOP)/engine $(TOP)/include "$$d"/; \
		rt=""; grep -qs '^CONFIG_PREEMPT_RT=y' "$$k/.config" && rt=", PREEMPT_RT"; \
		if $(MAKE) -C "$$k" M="$$d" W=1 modules >"$$d/build.log" 2>&1 && \
		   ! grep -qE 'warning:|error:' "$$d/build.log"; then \
			io="dm_io() without ioprio"; \
			grep -qs FC_DM_IO_IOPRIO "$$d/kmod/.fc_mdio.o.cmd" && io="dm_io() with ioprio"; \
			echo "buildcheck: $$ver: ok (W=1, $$io$$rt)"; \
		else \
			echo "buildcheck: $$ver: FAILED (W=1$$rt): $$d/build.log"; \
			grep -E 'warning:|error:' "$$d/build.log" | head -n 5; \
			fail=1; \
		fi; \
	done; \
	exit $$fail

# A tree of the other dm_io() flavour may not be installed (Debian 12 has
# only 6.1 trees, whose dm_io() takes ioprio), and the #if branch not taken
# is never compiled: compile the header alone against stubs of both.
buildcheck-compat:
	@for f in "" -DFC_DM_IO_IOPRIO; do \
		$(CC) -fsyntax-only -Wall -Wextra -Werror $$f -I$(TOP)/tests/unit/compat -I$(TOP)/kmod \
			$(TOP)/tests/unit/compat/compat_check.c || \
			{ echo "buildcheck: fc_compat.h ($${f:-dm_io() without ioprio}): FAILED"; exit 1; }; \
	done; \
	echo "buildcheck: fc_compat.h against stub dm_io() of 6.0..6.8 and of 6.9+: ok"
