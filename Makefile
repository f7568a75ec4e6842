# perf-defer: deferred user callchains for perf 6.12 (see README.md)
.PHONY: all fetch apply build export demo check check-series realkernel bench clean

all: build

fetch:
	scripts/fetch-base.sh

# (re)apply patches/series onto the base in build/src
apply:
	scripts/apply.sh

build/src/.git/BASE-OK:
	scripts/apply.sh

build: build/src/.git/BASE-OK
	scripts/build.sh

# write build/src's commits back into patches/
export:
	scripts/export.sh

demo: build
	scripts/demo.sh

check: build
	tests/run.sh

check-series: build/src/.git/BASE-OK
	scripts/check-series.sh

realkernel: build
	tests/run.sh realkernel

bench: build
	tests/bench/run.sh

clean:
	rm -rf build
