# perf-defer: deferred user callchains for perf 7.3 (see README.md)
#
#   make               fetch the base, apply patches-7.3/series, build
#                      build/perf-7.3/perf
#   make demo          the patched perf 7.3 on a bundled real recording
#   make check         every test (tests/run.sh), after building
#   make check-series  checkpatch, a build and a behaviour check of every prefix
#   make install       install perf 7.3 with the series, its scripts and man
#                      pages (PREFIX, DESTDIR)
#   make export        write build/src-7.3's commits back into patches-7.3/
#   make apply         re-apply patches-7.3/series onto the base in
#                      build/src-7.3
#   make peer          upstream 7.3's perf test on perf 7.3 with and without
#                      the 7.3 series (tests/peer/run.sh)
#   make clean         remove build outputs (keeps build/src-7.3)
#
# SERIES names the bases fetch, apply, build, export and check-series work
# on, in order (scripts/series.sh); 7.3 is the only one.
#
# Every target runs small scripts in scripts/ that do nothing when there is
# nothing to do, so the targets are phony and 'make' twice is quick.
PREFIX ?= /usr/local
SERIES ?= 7.3
# $(call each,COMMAND): COMMAND for every base in $(SERIES), in order,
# stopping at the first that fails; every: all of them, then fail if any did
each = @set -e; for s in $(SERIES); do SERIES=$$s $(1); done
every = @rc=0; for s in $(SERIES); do SERIES=$$s $(1) || rc=1; done; exit $$rc
.PHONY: all fetch apply build install export demo check check-series peer realkernel bench clean distclean check-asan

all: build

# trixie-backports' linux-source-7.3 (BASE-VERSION-7.3) -> build/src-7.3 at
# tag 'base'; build deps
fetch:
	$(call each,scripts/fetch-base.sh)

# re-apply the series onto its base in build/src-7.3 (refuses to lose work)
apply:
	$(call each,scripts/apply.sh)

# apply only if patches-7.3/ changed since the last apply/export; build only
# if build/src-7.3 changed since the last build
build:
	$(call each,scripts/apply.sh --if-needed)
	$(call each,scripts/build-perf.sh)

# perf, its scripts, tips.txt and man pages under $(PREFIX) (and $(DESTDIR)),
# with perf's own install targets (scripts/install.sh): the 7.3 series'
install:
	SERIES=$(firstword $(SERIES)) PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh

# write build/src-7.3's commits base..HEAD back into patches-7.3/
export:
	$(call each,scripts/export.sh)

# the 7.3 series' perf
demo:
	@$(MAKE) --no-print-directory build SERIES=7.3
	PERF_BASE=7.3 scripts/demo.sh

# the tests also need upstream perf 7.3 (trixie-backports' linux-perf), to
# compare with (tests/tools/upstream-perf.sh)
check: build
	@tests/tools/upstream-perf.sh --setup > build/upstream-setup.log 2>&1 || \
		echo "make check: no upstream perf 7.3 to compare with: $$(tail -n 1 build/upstream-setup.log)"
	tests/run.sh

check-series:
	$(call every,scripts/check-series.sh)

# upstream perf 7.3's own perf test on build/perf-7.3-base and build/perf-7.3
# (about 5 minutes per perf, twice with a series: not part of make check;
# tests/peer/run.sh)
peer:
	tests/peer/run.sh

realkernel: build
	tests/run.sh realkernel

bench: build
	tests/bench/run.sh
	tests/bench/targets.sh --instructions

# build outputs; keeps build/src-7.3 (the series' commits) and build/wt
# (worktrees)
clean:
	[ ! -d build ] || find build -mindepth 1 -maxdepth 1 ! -name src-7.3 \
		! -name wt ! -name applied-7.3.state -exec rm -rf {} +
	[ ! -d build/src-7.3 ] || git -C build/src-7.3 worktree prune

# everything, build/src-7.3 included: 'make export' first
distclean:
	rm -rf build

# perf built with ASan+UBSan (build/perf-asan) and every test with it
# (scripts/check-asan.sh: what it skips and why, how long it takes)
check-asan:
	scripts/check-asan.sh
