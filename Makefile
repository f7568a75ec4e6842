# perf-defer: deferred user callchains for perf 6.12 (see README.md)
#
#   make               fetch the base, apply patches/series, build build/perf/perf
#   make demo          the patched perf on a bundled real recording
#   make check         every test (tests/run.sh), after building
#   make check-series  checkpatch, a build and a behaviour check of every prefix
#   make install       install perf, its scripts and man pages (PREFIX, DESTDIR)
#   make export        write build/src's commits back into patches/
#   make apply         re-apply patches/series onto the base in build/src
#   make clean         remove build outputs (keeps build/src)
#
# Every target runs small scripts in scripts/ that do nothing when there is
# nothing to do, so the targets are phony and 'make' twice is quick.
PREFIX ?= /usr/local
.PHONY: all fetch apply build install export demo check check-series realkernel bench clean distclean check-asan

all: build

# linux-source-6.12 (BASE-VERSION) -> build/src at tag 'base'; build deps
fetch:
	scripts/fetch-base.sh

# re-apply patches/series onto the base in build/src (refuses to lose work)
apply:
	scripts/apply.sh

# apply only if patches/ changed since the last apply/export; build only if
# build/src changed since the last build
build:
	scripts/apply.sh --if-needed
	scripts/build.sh --if-changed

# perf, its scripts, tips.txt and man pages under $(PREFIX) (and $(DESTDIR)),
# with perf's own install targets (scripts/install.sh)
install:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh

# write build/src's commits base..HEAD back into patches/
export:
	scripts/export.sh

demo: build
	scripts/demo.sh

# the tests also need perf 6.12 without the series (build/perf-base)
check: build
	scripts/build-base-perf.sh
	tests/run.sh

check-series:
	scripts/check-series.sh

realkernel: build
	tests/run.sh realkernel

bench: build
	tests/bench/run.sh

# build outputs; keeps build/src (the series' commits) and build/wt (worktrees)
clean:
	[ ! -d build ] || find build -mindepth 1 -maxdepth 1 ! -name src ! -name wt \
		! -name applied.state -exec rm -rf {} +
	[ ! -d build/src ] || git -C build/src worktree prune

# everything, build/src included: 'make export' first
distclean:
	rm -rf build

# perf built with ASan+UBSan (build/perf-asan) and every test with it
# (scripts/check-asan.sh: what it skips and why, how long it takes)
check-asan:
	scripts/check-asan.sh
