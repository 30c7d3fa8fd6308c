# bloomxdp: see README.md. `make` builds build/bloomxdp; `make test` installs
# what is missing, builds and runs every test tier.

CLANG     ?= clang
CC        ?= gcc
BPFTOOL   ?= bpftool
BUILD     := build
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)

CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Werror -std=gnu11 -Iinclude -I$(BUILD) -Iuser
# Hardening, Debian 12's (dpkg-buildflags with hardening=+all; gcc makes PIE by default):
# fortified libc calls, the stack protector, relocations read-only and bound at start. The
# Debian package is built with these same flags (debian/rules), so make deb reuses make all's.
CPPFLAGS  ?= -D_FORTIFY_SOURCE=2
CFLAGS    += -fstack-protector-strong
LDFLAGS   ?= -Wl,-z,relro -Wl,-z,now
LDLIBS    := -lbpf -lelf -lz -lm -lidn2 -lpsl
# The daemon: its configuration file (inih) and its metrics server (libmicrohttpd).
LDLIBS    += -linih -lmicrohttpd
# Feed refresh: libcurl fetches; libcrypto: SHA-256 (user/util/sha256.c), the fleet's keys.
LDLIBS    += -lcurl -lcrypto
# The fleet: publish, fleet status and the daemon's subscriber talk to Redis (hiredis);
# rediss:// is TLS of our own (libssl, a bridge thread: user/fleet/tls.h).
LDLIBS    += -lhiredis -lssl -lpthread
# The CrowdSec bouncer: json-c reads the LAPI's replies.
LDLIBS    += -ljson-c
# attach --multiprog: libxdp loads the XDP program into its dispatcher (user/kernel/multiprog.c).
LDLIBS    += -lxdp
# The daemon under systemd (Type=notify): readiness, status, watchdog (sd_notify), and its log
# into the journal with fields (sd_journal_send): user/util/notify.c, user/util/log.c.
LDLIBS    += -lsystemd
# The flags in force, in $(BUILD)/flags (rewritten only when they change): what they compile
# is compiled again when they change (make CFLAGS=-O0, another CC), and only then.
BUILD_FLAGS := $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(LDLIBS)
BPF_CFLAGS := -O2 -g -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude \
	      -I/usr/include/$(MULTIARCH)

HEADERS   := $(wildcard include/bloomxdp/*.h)
# user/ in folders by role: the library is every folder but cli/, the commands (main.c
# and a thin struct command each), linked on top of it: a library call up into a command
# fails at link time.
LIB_DIRS  := util parse filter kernel lists fleet service
LIB_SRCS  := $(foreach d,$(LIB_DIRS),$(wildcard user/$(d)/*.c))
CLI_SRCS  := $(wildcard user/cli/*.c)
USER_HDRS := $(wildcard user/*/*.h)
LIB_OBJS  := $(LIB_SRCS:user/%.c=$(BUILD)/user/%.o)
CLI_OBJS  := $(CLI_SRCS:user/%.c=$(BUILD)/user/%.o)
SKELS     := $(BUILD)/bloomxdp.skel.h $(BUILD)/hash_probe.skel.h
# The same program source built for tc (bpf/hook.h): ingress or egress, tcx or clsact.
SKELS     += $(BUILD)/bloomxdp_tc.skel.h
# The filler of layout kernel's BLOOM_FILTER maps (user/filter/layout_kernel.c).
SKELS     += $(BUILD)/kbloom_fill.skel.h
# The socket guard's cgroup hooks (user/kernel/guard.c), skeleton struct guard.
SKELS     += $(BUILD)/guard.skel.h
# Test-only: include/bloomxdp/quic.h's crypto in the kernel (tests/bpf/test_quic_crypto_xdp.c).
SKELS     += $(BUILD)/quic_probe.skel.h

.SECONDARY:
.PHONY: FORCE all deps test test-kernel test-unit test-bpf test-e2e demo bench fuzz clean
all: $(BUILD)/bloomxdp $(BUILD)/xdp_pass.bpf.o $(BUILD)/tc_tos_drop.bpf.o

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(HEADERS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Every header of bpf/ compiles on its own, including what it uses: a syntax check of each alone.
BPF_HDR_CHECKS := $(patsubst bpf/%.h,$(BUILD)/bpf-headers/%.ok,$(wildcard bpf/*.h))
all: $(BPF_HDR_CHECKS)

$(BUILD)/bpf-headers/%.ok: bpf/%.h $(wildcard bpf/*.h) $(HEADERS) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -fsyntax-only -include $< -x c /dev/null && touch $@

$(BUILD)/bloomxdp_tc.bpf.o: bpf/bloomxdp.bpf.c $(wildcard bpf/*.h) $(HEADERS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -DBLOOMXDP_BUILD_TC -c $< -o $@

$(BUILD)/hash_probe.bpf.o: tests/bpf/hash_probe.bpf.c tests/bpf/hash_probe.h $(HEADERS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/quic_probe.bpf.o: tests/bpf/quic_probe.bpf.c tests/bpf/quic_probe.h $(HEADERS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -Itests/bpf -c $< -o $@

$(BUILD)/tc_tos_drop.bpf.o: tests/bpf/tc_tos_drop.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xdp_pass.bpf.o: tests/bpf/xdp_pass.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(BUILD)/guard.skel.h: $(BUILD)/connect.bpf.o
	$(BPFTOOL) gen skeleton $< name guard > $@.tmp && mv $@.tmp $@

$(BUILD)/flags: FORCE | $(BUILD)
	@printf '%s\n' '$(BUILD_FLAGS)' | cmp -s - $@ || printf '%s\n' '$(BUILD_FLAGS)' > $@

$(BUILD)/user/%.o: user/%.c $(USER_HDRS) $(HEADERS) $(SKELS) $(BUILD)/flags | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The version: the file VERSION, its one source (a clean clone and a tarball without .git alike).
VERSION := $(shell cat VERSION)
$(BUILD)/user/util/version.o: CFLAGS += -DBLOOMXDP_VERSION='"$(VERSION)"'
$(BUILD)/user/util/version.o: VERSION

$(BUILD)/libbloomxdp.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/bloomxdp: $(CLI_OBJS) $(BUILD)/libbloomxdp.a $(BUILD)/flags
	$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o %.a,$^) -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libbloomxdp.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS) -lcmocka

# Unit tests of the QUIC crypto and wire builder include tests/bpf's headers (vectors, builder).
$(BUILD)/tests/test_quic_crypto $(BUILD)/tests/test_quic_wire: $(wildcard tests/bpf/*.h)

# test_ifname runs command_main(), the command line's parser (user/cli/command.c).
$(BUILD)/tests/test_ifname: tests/unit/test_ifname.c $(BUILD)/user/cli/command.o \
			    $(BUILD)/libbloomxdp.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS) -lcmocka

$(BUILD)/tests/%: tests/bpf/%.c $(wildcard tests/bpf/*.h) $(BUILD)/libbloomxdp.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/bpf $(filter %.c,$^) $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS) -lcmocka

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS  := $(patsubst tests/bpf/%.c,$(BUILD)/tests/%,$(wildcard tests/bpf/test_*.c))
FUZZ_TESTS := $(BUILD)/tests/test_fuzz

# The fuzzer of the XDP program (tests/fuzz): a short run in make test, a long one in make fuzz.
$(BUILD)/tests/test_fuzz: tests/fuzz/test_fuzz.c $(wildcard tests/fuzz/*.h) \
			  $(wildcard tests/bpf/*.h) $(BUILD)/libbloomxdp.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/bpf -Itests/fuzz $< $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS)

$(BUILD):
	mkdir -p $@

deps:
	tests/install-deps.sh

test: deps
	$(MAKE) all $(UNIT_TESTS) $(BPF_TESTS) $(FUZZ_TESTS)
	tests/run.sh

# make test-kernel KERNEL=/path/to/vmlinuz-or-linux-image.deb (root): the BPF tier and the
# end-to-end smoke on that kernel under qemu (tests/kernel/vm.sh; a vmlinuz takes its modules
# from KERNEL_MODULES or /lib/modules/RELEASE). Without KERNEL: Debian's kernels of
# tests/kernel/kernels.sh, as make test runs them.
KERNEL ?=
test-kernel: deps
	$(MAKE) all $(BPF_TESTS) $(FUZZ_TESTS)
	@set -e; for k in $(if $(KERNEL),$(KERNEL),$$(tests/kernel/kernels.sh)); do \
		tests/kernel/vm.sh "$$k"; done

# make fuzz (root; not part of make test): FUZZ_FRAMES frames in each configuration of
# tests/fuzz/test_fuzz.c; FUZZ_SEED repeats a run (default: a random seed, printed).
FUZZ_FRAMES ?= 1000000
FUZZ_SEED   ?=
fuzz: deps
	$(MAKE) $(FUZZ_TESTS)
	$(FUZZ_TESTS) --frames $(FUZZ_FRAMES) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

demo: deps
	$(MAKE) all
	tests/demo.sh

clean:
	rm -rf $(BUILD)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libbloomxdp.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/bpf $< $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS)

# make bench (root; not part of make test): bench/run.sh installs what it needs
# (nftables, ipset, iptables, gnuplot-nox, linux-perf, time), runs build/bench/prog_run,
# then the throughput, memory and load-time benchmarks through veth pairs in
# namespaces of its own, and writes bench/results.md and bench/throughput.png.
# BENCH_QUICK=1: 100k entries and short runs.
BENCH_TOOLS := $(BUILD)/bench/prog_run $(BUILD)/bench/gen $(BUILD)/bench/rx \
	       $(BUILD)/bench/mklists

$(BUILD)/bench/%.bpf.o: bench/%.bpf.c $(HEADERS) bpf/filter.h | $(BUILD)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/%.skel.h: $(BUILD)/bench/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(BUILD)/bench/gen: bench/gen.c bench/own_mac.h bench/tls_hello.h tests/bpf/dns_wire.h $(BUILD)/bench/gen.skel.h
	$(CC) $(CFLAGS) -Itests/bpf -I$(BUILD)/bench $< -o $@ -lbpf -lelf -lz -lpthread

$(BUILD)/bench/rx: bench/rx.c $(BUILD)/bench/receivers.skel.h $(BUILD)/libbloomxdp.a
	$(CC) $(CFLAGS) -I$(BUILD)/bench $< $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS)

# prog_run also measures a filter lookup over many keys (bench/lookup.bpf.c).
$(BUILD)/bench/prog_run: bench/prog_run.c bench/tls_hello.h $(BUILD)/bench/lookup.skel.h $(BUILD)/libbloomxdp.a \
			 $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/bpf -I$(BUILD)/bench $< $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS)

# walk: the whole program per packet over many addresses (bench/results.md, "Hot path, round two").
BENCH_TOOLS += $(BUILD)/bench/walk
$(BUILD)/bench/walk: bench/walk.c $(BUILD)/libbloomxdp.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libbloomxdp.a -o $@ $(LDLIBS)

$(BUILD)/bench/mklists: bench/mklists.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@

# tx: the hook benchmark's AF_PACKET sender and bpf_stats reader (bench/hooks.sh), and the
# UDP sender of the QUIC Initial flood (bench/quic.sh).
BENCH_TOOLS += $(BUILD)/bench/tx
$(BUILD)/bench/tx: bench/tx.c bench/own_mac.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

bench: all $(BENCH_TOOLS)
	bench/run.sh

# bloomxdp(8), made from the command tables by the binary itself (user/cli/manpage.c).
MAN_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)
all: $(BUILD)/bloomxdp.8

$(BUILD)/bloomxdp.8: dist/bloomxdp.8.in $(BUILD)/bloomxdp
	$(BUILD)/bloomxdp --man < $< | sed 's/@DATE@/$(MAN_DATE)/; s/@VERSION@/$(VERSION)/g' \
		> $@.tmp && mv $@.tmp $@

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the binary, bloomxdp(8), bash
# completion, the systemd unit (naming the installed binary), an example configuration, the
# fail2ban action, the Grafana dashboard (DATADIR/grafana), the README and docs/. make uninstall with the same variables removes these
# files (the two under SYSCONFDIR only when unchanged: an edited one is kept, and said) and the
# directories of bloomxdp's own, when empty; the shared ones (man8, completions...) stay.
PREFIX      ?= /usr/local
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR     ?= $(PREFIX)/lib/systemd/system
DOCDIR      ?= $(PREFIX)/share/doc/bloomxdp
DATADIR     ?= $(PREFIX)/share/bloomxdp
SYSCONFDIR  ?= /etc
DOCS        := $(wildcard docs/*.md)
INSTALLED   := $(SBINDIR)/bloomxdp $(MANDIR)/man8/bloomxdp.8 $(BASHCOMPDIR)/bloomxdp \
	       $(UNITDIR)/bloomxdp@.service $(DOCDIR)/README.md $(addprefix $(DOCDIR)/,$(DOCS)) \
	       $(DATADIR)/grafana/bloomxdp.json
# Configuration, removed only as installed: each file and the command that makes it.
CONF_EXAMPLE := $(SYSCONFDIR)/bloomxdp/example.conf
CONF_F2B     := $(SYSCONFDIR)/fail2ban/action.d/bloomxdp.conf
MAKE_EXAMPLE := cat dist/example.conf
MAKE_F2B     := sed 's|@SBINDIR@|$(SBINDIR)|g' dist/fail2ban/bloomxdp.conf

.PHONY: install uninstall
install: all
	install -D -m 0755 $(BUILD)/bloomxdp $(DESTDIR)$(SBINDIR)/bloomxdp
	install -D -m 0644 $(BUILD)/bloomxdp.8 $(DESTDIR)$(MANDIR)/man8/bloomxdp.8
	install -D -m 0644 dist/bloomxdp.bash $(DESTDIR)$(BASHCOMPDIR)/bloomxdp
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g' dist/bloomxdp@.service.in \
		> $(DESTDIR)$(UNITDIR)/bloomxdp@.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/bloomxdp@.service
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -d $(DESTDIR)$(DOCDIR)/docs
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	install -D -m 0644 dist/grafana/bloomxdp.json $(DESTDIR)$(DATADIR)/grafana/bloomxdp.json
	install -d $(DESTDIR)$(SYSCONFDIR)/bloomxdp $(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d
	$(MAKE_EXAMPLE) > $(DESTDIR)$(CONF_EXAMPLE)
	chmod 0644 $(DESTDIR)$(CONF_EXAMPLE)
	$(MAKE_F2B) > $(DESTDIR)$(CONF_F2B)
	chmod 0644 $(DESTDIR)$(CONF_F2B)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	@for f in "$(CONF_EXAMPLE):$(MAKE_EXAMPLE)" "$(CONF_F2B):$(MAKE_F2B)"; do \
		path=$(DESTDIR)$${f%%:*}; [ -e "$$path" ] || continue; \
		if sh -c "$${f#*:}" | cmp -s - "$$path"; then rm -f "$$path"; \
		else echo "kept $$path: it was changed since make install (remove it by hand)"; \
		fi; done
	@# Ours; and fail2ban's, when empty (no fail2ban installed: the install made them).
	@for d in $(SYSCONFDIR)/bloomxdp $(DOCDIR)/docs $(DOCDIR) $(DATADIR)/grafana $(DATADIR) \
		  $(SYSCONFDIR)/fail2ban/action.d $(SYSCONFDIR)/fail2ban; do \
		[ ! -d "$(DESTDIR)$$d" ] || rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done

# make deb: build/bloomxdp_VERSION_ARCH.deb, made by Debian's tools (dpkg-buildpackage and
# debhelper, over debian/rules: make all, make install PREFIX=/usr), from build/ as make all
# left it. Its version is debian/changelog's, which must be VERSION's (debian/rules checks).
# Needs the build dependencies of debian/control (tests/install-deps.sh installs them).
DEB_ARCH = $(shell dpkg-architecture -qDEB_HOST_ARCH)
DEB_BASE = $(BUILD)/bloomxdp_$(VERSION)_$(DEB_ARCH)
.PHONY: deb
# dpkg-buildpackage without this make's MAKEFLAGS (its jobserver is not passed on): -Jauto
# gives debian/rules the parallel jobs instead.
deb: | $(BUILD)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	dpkg-buildpackage -b -uc -us -Jauto --buildinfo-file=$(DEB_BASE).buildinfo \
		--buildinfo-option=-u$(BUILD) --changes-file=$(DEB_BASE).changes \
		--changes-option=-u$(BUILD)
	@echo "make deb: $(DEB_BASE).deb"
