# make install (included by the top-level Makefile).
#   make install [DESTDIR=/staging] [KVER=<kernel release>]
# installs dm-fcache.ko to /lib/modules/$(KVER)/extra (+ depmod), the DKMS
# source tree to /usr/src/fcache-$(FC_PKG_VERSION) with its dkms.conf,
# fcachectl to /usr/sbin, the man page, fcache.service, the udev rule, the
# bash completion, the OCF resource agent for Pacemaker
# (/usr/lib/ocf/resource.d/fcache/fcache) and an example
# /etc/fcache/fcache.conf (never overwritten).

FC_PKG_VERSION ?= $(shell cat $(TOP)/VERSION 2>/dev/null || echo 0.1)
# the release is the /lib/modules/<release>/build directory KDIR names
# (Debian's headers carry an upstream kernel.release such as 6.1.192)
KVER ?= $(if $(filter /lib/modules/%,$(KDIR)),$(notdir $(patsubst %/build,%,$(patsubst %/,%,$(KDIR)))),\
	$(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null))
DESTDIR ?=
SBINDIR ?= /usr/sbin
MANDIR ?= /usr/share/man
UNITDIR ?= /lib/systemd/system
UDEVRULESDIR ?= /lib/udev/rules.d
COMPLETIONDIR ?= /usr/share/bash-completion/completions
OCFDIR ?= /usr/lib/ocf
DKMSDIR = /usr/src/fcache-$(FC_PKG_VERSION)
INSTALL ?= install

.PHONY: install install-module install-dkms install-userspace

install: install-module install-dkms install-userspace

install-module: module
	@test -n "$(KVER)" || { echo "fcache: cannot tell the kernel release of $(KDIR); set KVER=" >&2; exit 1; }
	$(INSTALL) -D -m 0644 $(TOP)/dm-fcache.ko $(DESTDIR)/lib/modules/$(KVER)/extra/dm-fcache.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); \
	elif [ -e /lib/modules/$(KVER)/modules.order ]; then \
		depmod -b $(DESTDIR) $(KVER) 2>/dev/null || echo "fcache: depmod -b $(DESTDIR) skipped" >&2; \
	fi

install-dkms:
	$(INSTALL) -d $(DESTDIR)$(DKMSDIR)/kmod $(DESTDIR)$(DKMSDIR)/engine $(DESTDIR)$(DKMSDIR)/include
	$(INSTALL) -m 0644 $(TOP)/Kbuild $(DESTDIR)$(DKMSDIR)/Kbuild
	$(INSTALL) -m 0644 $(wildcard $(TOP)/kmod/*.c $(TOP)/kmod/*.h) $(DESTDIR)$(DKMSDIR)/kmod/
	$(INSTALL) -m 0644 $(wildcard $(TOP)/engine/*.c $(TOP)/engine/*.h) $(DESTDIR)$(DKMSDIR)/engine/
	$(INSTALL) -m 0644 $(wildcard $(TOP)/include/*.h) $(DESTDIR)$(DKMSDIR)/include/
	sed 's/@VERSION@/$(FC_PKG_VERSION)/' $(TOP)/dkms.conf >$(DESTDIR)$(DKMSDIR)/dkms.conf
	chmod 0644 $(DESTDIR)$(DKMSDIR)/dkms.conf

install-userspace: userspace
	$(INSTALL) -D -m 0755 $(TOP)/userspace/fcachectl $(DESTDIR)$(SBINDIR)/fcachectl
	$(INSTALL) -D -m 0644 $(TOP)/man/fcachectl.8 $(DESTDIR)$(MANDIR)/man8/fcachectl.8
	sed 's|@SBINDIR@|$(SBINDIR)|g' $(TOP)/systemd/fcache.service >$(TOP)/build/fcache.service.tmp 2>/dev/null || \
		{ mkdir -p $(TOP)/build && sed 's|@SBINDIR@|$(SBINDIR)|g' $(TOP)/systemd/fcache.service >$(TOP)/build/fcache.service.tmp; }
	$(INSTALL) -D -m 0644 $(TOP)/build/fcache.service.tmp $(DESTDIR)$(UNITDIR)/fcache.service
	sed 's|@SBINDIR@|$(SBINDIR)|g' $(TOP)/udev/69-fcache.rules >$(TOP)/build/69-fcache.rules.tmp
	$(INSTALL) -D -m 0644 $(TOP)/build/69-fcache.rules.tmp $(DESTDIR)$(UDEVRULESDIR)/69-fcache.rules
	rm -f $(TOP)/build/fcache.service.tmp $(TOP)/build/69-fcache.rules.tmp
	$(INSTALL) -D -m 0644 $(TOP)/completion/fcachectl $(DESTDIR)$(COMPLETIONDIR)/fcachectl
	$(INSTALL) -D -m 0755 $(TOP)/ocf/fcache $(DESTDIR)$(OCFDIR)/resource.d/fcache/fcache
	$(INSTALL) -d $(DESTDIR)/etc/fcache
	@if [ ! -e $(DESTDIR)/etc/fcache/fcache.conf ]; then \
		$(INSTALL) -m 0644 $(TOP)/systemd/fcache.conf.example $(DESTDIR)/etc/fcache/fcache.conf; fi
