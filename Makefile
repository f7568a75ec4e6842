# perf-defer: deferred user callchains for perf 6.12 and 7.2 (see README.md)
#
#   make               fetch the bases, apply patches/series and
#                      patches-7.2/series, build build/perf/perf and
#                      build/perf-7.2/perf
#   make demo          the patched perf 7.2 on a bundled real recording
#                      (fetches and builds 7.2 only)
#   make check         every test (tests/run.sh), after building
#   make check-series  checkpatch, a build and a behaviour check of every prefix
#   make install       install perf 7.2 with the series, its scripts and man
#                      pages (PREFIX, DESTDIR; SERIES=6.12 for 6.12's)
#   make export        write build/src's commits back into patches/ (and
#                      build/src-7.2's into patches-7.2/)
#   make apply         re-apply patches/series onto the base in build/src
#                      (and patches-7.2/series in build/src-7.2)
#   make peer          upstream 7.2's perf test on perf 7.2 with and without
#                      the 7.2 series (tests/peer/run.sh)
#   make clean         remove build outputs (keeps build/src, build/src-7.2)
#
# SERIES=6.12 or SERIES=7.2 limits fetch, apply, build, export and
# check-series to one base (scripts/series.sh).
#
# Every target runs small scripts in scripts/ that do nothing when there is
# nothing to do, so the targets are phony and 'make' twice is quick.
PREFIX ?= /usr/local
SERIES ?= 6.12 7.2
# $(call each,COMMAND): COMMAND for every base in $(SERIES), in order,
# stopping at the first that fails; every: all of them, then fail if any did
each = @set -e; for s in $(SERIES); do SERIES=$$s $(1); done
every = @rc=0; for s in $(SERIES); do SERIES=$$s $(1) || rc=1; done; exit $$rc
.PHONY: all fetch apply build install export demo check check-series peer realkernel bench clean distclean check-asan

all: build

# linux-source-6.12 (BASE-VERSION) -> build/src at tag 'base', sid's
# linux-source-7.2 (BASE-VERSION-7.2) -> build/src-7.2; build deps
fetch:
	$(call each,scripts/fetch-base.sh)

# re-apply patches/series onto the base in build/src (refuses to lose work)
apply:
	$(call each,scripts/apply.sh)

# apply only if patches/ changed since the last apply/export; build only if
# build/src changed since the last build (and the same for 7.2)
build:
	$(call each,scripts/apply.sh --if-needed)
	$(call each,scripts/build-perf.sh)

# perf, its scripts, tips.txt and man pages under $(PREFIX) (and $(DESTDIR)),
# with perf's own install targets (scripts/install.sh): the 7.2 series', or
# the last base SERIES names
install:
	SERIES=$(lastword $(SERIES)) PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh

# write build/src's commits base..HEAD back into patches/
export:
	$(call each,scripts/export.sh)

# 7.2's perf only (the primary series; the 6.12 one is frozen)
demo:
	@$(MAKE) --no-print-directory build SERIES=7.2
	PERF_BASE=7.2 scripts/demo.sh

# the tests also need perf 6.12 without the series (build/perf-base: the
# first of the series checks' builds) and upstream perf 7.2 (Debian sid's,
# to compare with and as the unpatched 7.2; its sid root is made beside the
# build: it waits on the network, the build on the processors)
check: build
	@tests/tools/upstream-perf.sh --setup > build/upstream-setup.log 2>&1 & up=$$!; \
	SERIES=6.12 scripts/build-base-perf.sh; rc=$$?; \
	wait $$up || echo "make check: no upstream perf 7.2 to compare with: $$(tail -n 1 build/upstream-setup.log)"; \
	exit $$rc
	tests/run.sh

check-series:
	$(call every,scripts/check-series.sh)

# upstream perf 7.2's own perf test on build/perf-7.2-base and build/perf-7.2
# (about 5 minutes per perf, twice with a series: not part of make check;
# tests/peer/run.sh)
peer:
	tests/peer/run.sh

realkernel: build
	tests/run.sh realkernel

bench: build
	tests/bench/run.sh
	tests/bench/targets.sh --instructions

# build outputs; keeps build/src and build/src-7.2 (the series' commits)
# and build/wt (worktrees)
clean:
	[ ! -d build ] || find build -mindepth 1 -maxdepth 1 ! -name src ! -name src-7.2 \
		! -name wt ! -name applied.state ! -name applied-7.2.state -exec rm -rf {} +
	[ ! -d build/src ] || git -C build/src worktree prune
	[ ! -d build/src-7.2 ] || git -C build/src-7.2 worktree prune

# everything, build/src included: 'make export' first
distclean:
	rm -rf build

# perf built with ASan+UBSan (build/perf-asan) and every test with it
# (scripts/check-asan.sh: what it skips and why, how long it takes)
check-asan:
	scripts/check-asan.sh
