#!/bin/bash
# run.sh - record with OUR perf on a real Linux 7.3 kernel, the kind that
# writes deferred user callchains (no kernel on our machines does).  Our
# perf: build/perf-7.3/perf (the default; PERF=... for another build).
#
#   tests/realkernel/run.sh          record, results in build/realkernel/out/
#   tests/realkernel/run.sh --key    print the cache key (perf + harness hashes)
#
# 1. installs qemu-system-x86, busybox-static, cpio (and python3-zstandard,
#    for tests/tools/deferred_stats.py on -z files) with apt if missing;
# 2. gets Debian trixie-backports' cloud kernel of the base's version
#    (BASE-VERSION-7.3: 7.3.4-1~bpo13+1, linux-image-7.3.4+deb13-cloud-amd64,
#    whose uname -r is 7.3.4+deb13-cloud-amd64), or, when the mirror no
#    longer has that version, the newest linux-image-7.3.N+debNN-cloud-amd64
#    there, from the Debian mirror with a private apt configuration
#    (scripts/debian-apt.sh: its own sources.list of trixie and
#    trixie-backports, lists and cache in $PERF_DEFER_CACHE/debian-apt,
#    shared with scripts/fetch-base.sh's linux-source package; the host's
#    apt setup is not touched) and unpacks the
#    linux-base/linux-binary/linux-modules-7.3.N+debNN-cloud-amd64 packages
#    it depends on (vmlinuz, virtio_blk.ko), cached under
#    ${PERF_DEFER_CACHE:-/var/cache/perf-defer}/realkernel/kernels/KVER;
#    without network, the newest 7.3.N kernel cached there;
# 3. builds our static frame pointer workloads (workloads/*.c);
# 4. builds an initramfs: busybox-static, $PERF (default build/perf-7.3/perf)
#    with the shared libraries ldd lists, the workloads at /realkernel/bin,
#    the series' shell test tools/perf/tests/shell/record_defer_callchain.sh
#    (with tests/shell/lib; from $SRC, default build/src-7.3, when it has one)
#    at /realkernel/perf/tests/shell, guest-init as /init;
# 5. boots it under qemu TCG (no KVM needed, 2 vCPUs run by one host
#    thread: with a thread each, the guest kernel now and then executed an
#    instruction a static key had just patched, half old, half new, and
#    panicked; one thread is as fast here): guest-init records
#    the workloads with `perf record --call-graph fp,defer` per task, -a,
#    --per-thread, -z, pipe mode, two events (and one plain fp recording),
#    an off-CPU workload with sched:sched_switch (per task and -a) and
#    cpu-clock, an exec workload with cpu-clock at 10 kHz, runs the shell
#    test through perf test, with a perf 7 runs perf top --stdio and perf
#    trace with fp,defer on the syscalls workload (live/), and upstream
#    perf's beside them when tests/tools/upstream-perf.sh has it
#    (trixie-backports' linux-perf 7.3.4; its loader and libraries in
#    /upstream, 50 MB more initramfs),
#    and writes its results as a tar archive onto
#    a virtio disk;
# 6. checks that the guest ran the kernel it was given (its uname -r is
#    KVER) and unpacks the results into build/realkernel/out/ (data/,
#    logs/, sysinfo/, recordings.tsv, shelltest.txt, console.txt) with
#    symfs/ for symbolising on the host:
#    perf script --symfs=OUT/symfs --kallsyms=OUT/symfs/kallsyms
#    and the wall times in walltime.txt.
#
# About 3-5 minutes on 2 cores, most of it in qemu.  Exit status 77 (with a
# "SKIP: reason" line) when qemu or the kernel package cannot be had; any
# other failure is an error.  Environment: PERF, SRC, PERF_DEFER_CACHE,
# PERF_DEFER_MIRROR (default: the host's Debian mirror, scripts/debian-mirror.sh),
# REALKERNEL_OUT.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PERF=${PERF:-$TOP/build/perf-7.3/perf}
CACHE=${PERF_DEFER_CACHE:-/var/cache/perf-defer}/realkernel
# shellcheck source=../../scripts/debian-mirror.sh
. "$TOP/scripts/debian-mirror.sh"
MIRROR=$(debian_mirror) || { echo "SKIP: no Debian mirror (set PERF_DEFER_MIRROR)"; exit 77; }
OUT=${REALKERNEL_OUT:-$TOP/build/realkernel/out}
WORK=$(dirname "$OUT")/work
CFLAGS="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-shrink-wrap -static -pthread -Wall"
WORKLOADS="syscalls threads userloop longsys exiter offcpu execer exectarget"
# upstream perf (tests/tools/upstream-perf.sh: trixie-backports' linux-perf
# 7.3.4), for perf top and perf trace live beside ours, when its root is
# already there
UPROOT=
if "$TOP/tests/tools/upstream-perf.sh" --available 2> /dev/null; then
	UPROOT=$("$TOP/tests/tools/upstream-perf.sh" --root)
fi
# the series' shell test, run in the guest through perf test (when the
# series has it)
SHELLTESTS=${SRC:-$TOP/build/src-7.3}/tools/perf/tests/shell
SHELLTEST=record_defer_callchain.sh
export LC_ALL=C

unavailable() { echo "SKIP: $*"; exit 77; }
die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "=== [$(date +%T)] $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ -x "$PERF" ] || die "no perf binary at $PERF (make build, or set PERF)"
PERF=$(readlink -f "$PERF")

# the key of a result: which perf recorded, with which harness
key() {
	{
		echo "perf $(sha256sum < "$PERF" | cut -d' ' -f1)"
		cat "$HERE/run.sh" "$HERE/guest-init" "$HERE"/workloads/*.[ch] | sha256sum | sed 's/^/harness /;s/ *-$//'
		if [ -f "$SHELLTESTS/$SHELLTEST" ]; then
			cat "$SHELLTESTS/$SHELLTEST" "$SHELLTESTS"/lib/*.sh | sha256sum | sed 's/^/shell test /;s/ *-$//'
		fi
		if [ -n "$UPROOT" ]; then
			echo "upstream $(sha256sum < "$UPROOT/usr/bin/perf" | cut -d' ' -f1)"
		fi
	}
}
if [ "${1:-}" = --key ]; then key; exit 0; fi

T0=$(now)
mkdir -p "$CACHE" "$WORK" || unavailable "cannot create $CACHE"
# one run at a time in this output directory
exec 8> "$(dirname "$OUT")/.run.lock"
flock 8

# --- 1. host packages ------------------------------------------------------
need=""
for p in qemu-system-x86 busybox-static cpio python3-zstandard; do
	dpkg -s "$p" > /dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || unavailable "missing packages:$need (installing them needs root)"
	log "apt-get install$need"
	apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends $need > "$CACHE/apt-install.log" 2>&1 ||
		unavailable "apt-get install$need failed (see $CACHE/apt-install.log)"
fi
command -v qemu-system-x86_64 > /dev/null || unavailable "no qemu-system-x86_64"
[ -x /bin/busybox ] || unavailable "no /bin/busybox"

# --- 2. the kernel: trixie-backports' linux-image-7.3.N+debNN-cloud-amd64 ---
T1=$(now)
exec 9> "$CACHE/.lock"
flock 9
mkdir -p "$CACHE/debs" "$CACHE/kernels"
. "$TOP/scripts/debian-apt.sh"
debian_apt_init "$(dirname "$CACHE")/debian-apt" "$MIRROR" || unavailable "cannot create $(dirname "$CACHE")/debian-apt"
A=("${DEBIAN_APT[@]}")
# the base's version (7.3.4-1~bpo13+1): its kernel is the one to boot
BASEVER=$(sed -n 's/^version=//p' "$TOP/BASE-VERSION-7.3" 2> /dev/null)
KVER="" VER=""
log "trixie and trixie-backports package lists ($MIRROR)"
if debian_apt_update "$CACHE/apt-update.log"; then
	# KVER VERSION of each linux-image-7.3.N+debNN-cloud-amd64 (not -dbg)
	apt-cache "${A[@]}" pkgnames linux-image-7.3. |
		sed -n 's/^linux-image-\(7\.3\.[0-9]*+deb[0-9]*-cloud-amd64\)$/\1/p' |
		while read -r k; do
			apt-cache "${A[@]}" show "linux-image-$k" | sed -n "s/^Version: /$k /p"
		done | sort -V -k2 > "$CACHE/kernels.txt"
	read -r KVER VER <<< "$(awk -v v="$BASEVER" '$2 == v' "$CACHE/kernels.txt" | tail -1)"
	if [ -z "$KVER" ]; then
		read -r KVER VER <<< "$(tail -1 "$CACHE/kernels.txt")"
		[ -z "$KVER" ] || echo "no cloud kernel of the base's version ${BASEVER:-?} in trixie-backports now: the newest, $VER"
	fi
	[ -n "$KVER" ] || echo "no linux-image-7.3.N+debNN-cloud-amd64 in trixie-backports now"
else
	echo "apt-get update failed (see $CACHE/apt-update.log)"
fi
if [ -n "$KVER" ] && ! grep -qF "linux-image-$KVER $VER:" "$CACHE/kernels/$KVER/.ok" 2> /dev/null; then
	log "download linux-image-$KVER $VER"
	pkgs=$(apt-cache "${A[@]}" show "linux-image-$KVER=$VER" | sed -n 's/^Depends: //p' | head -1 |
		tr ',' '\n' | awk -v k="$KVER" -v v="$VER" '
			$1 == "linux-base-" k || $1 == "linux-binary-" k || $1 == "linux-modules-" k { print $1 "=" v }')
	[ "$(echo "$pkgs" | wc -w)" -ge 2 ] || die "cannot tell the packages of linux-image-$KVER from its Depends"
	rm -rf "$CACHE/debs/$KVER" "$CACHE/kernels/$KVER"
	mkdir -p "$CACHE/debs/$KVER" "$CACHE/kernels/$KVER"
	if (cd "$CACHE/debs/$KVER" && apt-get "${A[@]}" -q download $pkgs) > "$CACHE/apt-download.log" 2>&1; then
		for d in "$CACHE/debs/$KVER"/*.deb; do dpkg-deb -x "$d" "$CACHE/kernels/$KVER"; done
		rm -rf "$CACHE/debs/$KVER"
		echo "linux-image-$KVER $VER:" $pkgs > "$CACHE/kernels/$KVER/.ok"
	else
		echo "apt-get download failed (see $CACHE/apt-download.log)"
		KVER=""
	fi
fi
if [ -z "$KVER" ]; then
	# no network, or the mirror has no 7.3 any more: the newest one we have
	KVER=$(for k in "$CACHE"/kernels/7.3.*+deb*-cloud-amd64; do
		[ -f "$k/.ok" ] && basename "$k"; done | sort -V | tail -1)
	[ -n "$KVER" ] || unavailable "cannot get Debian trixie-backports' linux-image-7.3.N+debNN-cloud-amd64 (see $CACHE/apt-*.log)"
	echo "using the cached kernel $KVER"
fi
flock -u 9
KROOT=$CACHE/kernels/$KVER
# (the package name's KVER is the kernel's release, uname -r)
MODDIR=$KROOT/usr/lib/modules/$KVER
[ -d "$MODDIR" ] || MODDIR=$KROOT/lib/modules/$KVER
[ -d "$MODDIR" ] || die "no modules directory $KVER in $KROOT"
VMLINUZ=$MODDIR/vmlinuz
[ -f "$VMLINUZ" ] || VMLINUZ=$KROOT/boot/vmlinuz-$KVER
[ -f "$VMLINUZ" ] || die "no vmlinuz of $KVER in $KROOT"
CONFIG=$MODDIR/config
[ -f "$CONFIG" ] || CONFIG=$KROOT/boot/config-$KVER
if [ -f "$CONFIG" ] && ! grep -q '^CONFIG_UNWIND_USER=y' "$CONFIG"; then
	die "$KVER has no CONFIG_UNWIND_USER: it cannot defer user callchains"
fi
echo "kernel: $(cat "$KROOT/.ok")"

# --- 3. workloads ----------------------------------------------------------------
T2=$(now)
log "workloads"
rm -rf "$WORK" && mkdir -p "$WORK/bin"
for w in $WORKLOADS; do
	gcc $CFLAGS -o "$WORK/bin/$w" "$HERE/workloads/$w.c" || die "cannot build workload $w"
done

# --- 4. initramfs ----------------------------------------------------------------
log "initramfs with $PERF"
ST=$WORK/root
mkdir -p "$ST"/usr/bin "$ST"/usr/lib/x86_64-linux-gnu "$ST"/usr/lib64 "$ST"/lib/modules \
	"$ST"/proc "$ST"/sys "$ST"/dev "$ST"/tmp "$ST"/root "$ST"/etc "$ST"/results "$ST"/realkernel/bin
ln -s usr/bin "$ST/bin"; ln -s usr/bin "$ST/sbin"; ln -s usr/lib64 "$ST/lib64"
ln -s ../usr/lib/x86_64-linux-gnu "$ST/lib/x86_64-linux-gnu"
cp /bin/busybox "$ST/usr/bin/busybox"
cp "$PERF" "$ST/usr/bin/perf"
ldd "$PERF" | awk '/=> \//{ print $3 } /^[ \t]*\/lib64\//{ print $1 }' | sort -u | while read -r lib; do
	case "$lib" in
	*/lib64/*) cp -L "$lib" "$ST/usr/lib64/$(basename "$lib")" ;;
	*) cp -L "$lib" "$ST/usr/lib/x86_64-linux-gnu/$(basename "$lib")" ;;
	esac
done
cp "$WORK"/bin/* "$ST/realkernel/bin/"
if [ -n "$UPROOT" ]; then
	# its own loader and libraries, as upstream-perf.sh runs it (+50 MB)
	mkdir -p "$ST/upstream/lib"
	cp "$UPROOT/usr/bin/perf" "$ST/upstream/perf"
	ULDSO=$UPROOT/lib64/ld-linux-x86-64.so.2
	[ -e "$ULDSO" ] || ULDSO=$UPROOT/usr/lib64/ld-linux-x86-64.so.2
	cp -L "$ULDSO" "$ST/upstream/ld.so"
	"$ULDSO" --library-path "$UPROOT/usr/lib/x86_64-linux-gnu:$UPROOT/lib/x86_64-linux-gnu" \
		--list "$UPROOT/usr/bin/perf" | awk '/=> \//{ print $3 }' |
		while read -r lib; do cp -L "$lib" "$ST/upstream/lib/"; done
fi
if [ -f "$SHELLTESTS/$SHELLTEST" ]; then
	mkdir -p "$ST/realkernel/perf/tests/shell/lib"
	cp "$SHELLTESTS/$SHELLTEST" "$ST/realkernel/perf/tests/shell/"
	cp "$SHELLTESTS"/lib/*.sh "$ST/realkernel/perf/tests/shell/lib/"
fi
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$ST/etc/passwd"
printf 'root:x:0:\n' > "$ST/etc/group"
install -m 755 "$HERE/guest-init" "$ST/init"
# the virtio disk driver and what it needs, unless built in (the package
# has no modules.dep: the dependencies come from each module's .modinfo)
decompress() { # FILE
	case "$1" in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}
add_module() { # NAME
	local m=$1 f dep
	grep -q "/$m\.ko$" "$MODDIR/modules.builtin" && return 0
	grep -qx "$m.ko" "$ST/lib/modules/load-order" && return 0
	f=$(find "$MODDIR/kernel" -name "$m.ko*" | head -1)
	[ -n "$f" ] || die "no module $m in $KVER"
	decompress "$f" > "$ST/lib/modules/$m.ko"
	for dep in $(tr '\0' '\n' < "$ST/lib/modules/$m.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add_module "$dep"
	done
	echo "$m.ko" >> "$ST/lib/modules/load-order"
}
: > "$ST/lib/modules/load-order"
add_module virtio_pci
add_module virtio_blk
# uncompressed: unpacking a compressed initramfs is slow under TCG
(cd "$ST" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) > "$WORK/initramfs.cpio"
echo "initramfs: $(du -m "$WORK/initramfs.cpio" | cut -f1) MB"

# --- 5. boot and record ----------------------------------------------------------
T3=$(now)
log "qemu (TCG, 2 vCPUs in one thread) on $KVER"
IMG=$WORK/results.img
# the guest kernel's own oops, from its first line: what a panic report needs
oops() {
	sed -n '/\(BUG: \|Oops\|general protection\|invalid opcode\|WARNING: \)/,$p' "$1" | head -40
}
boot() {
	rm -f "$IMG" && truncate -s 256M "$IMG"
	rc=0
	timeout 900 qemu-system-x86_64 -machine pc -accel tcg,thread=single -cpu max -smp 2 -m 1024 \
		-no-reboot -display none -vga none -serial stdio -monitor none \
		-kernel "$VMLINUZ" -initrd "$WORK/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" \
		-drive file="$IMG",format=raw,if=virtio > "$WORK/console.txt" 2>&1 < /dev/null || rc=$?
}
boot
# Should the guest kernel panic all the same (what multi-threaded TCG
# did: "Fatal exception in interrupt", RIP one byte into an instruction a
# static key had just patched, in CI at 39 s and here at boot), boot once
# more, and say so (walltime.txt too); a second panic fails.
if grep -aq 'Kernel panic' "$WORK/console.txt"; then
	log "the guest kernel panicked; its oops:"
	oops "$WORK/console.txt"
	cp "$WORK/console.txt" "$WORK/console-panic.txt"
	log "booting once more (the first console is in $WORK/console-panic.txt)"
	boot
	PANICS=1
fi
QEMU_S=$(since "$T3")
grep -a '^GUEST: ' "$WORK/console.txt" || true
if [ "$rc" != 0 ] || grep -aq 'Kernel panic' "$WORK/console.txt"; then
	oops "$WORK/console.txt"
	tail -30 "$WORK/console.txt"
	die "qemu exited with $rc after $QEMU_S s"
fi

# --- 6. results ------------------------------------------------------------------
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"
tar xf "$IMG" -C "$OUT.tmp" 2> /dev/null || true
[ -f "$OUT.tmp/done" ] || { tail -30 "$WORK/console.txt"; die "the guest wrote no results"; }
rm -f "$OUT.tmp/done" "$IMG"
# the kernel that ran is the one we meant
GUEST_R=$(cut -d' ' -f3 "$OUT.tmp/sysinfo/uname.txt")
[ "$GUEST_R" = "$KVER" ] || die "the guest ran ${GUEST_R:-no kernel?} (uname -a: $(cat "$OUT.tmp/sysinfo/uname.txt")), not $KVER"
cp "$WORK/console.txt" "$OUT.tmp/console.txt"
mkdir -p "$OUT.tmp/symfs/realkernel/bin"
cp "$WORK"/bin/* "$OUT.tmp/symfs/realkernel/bin/"
mv "$OUT.tmp/sysinfo/kallsyms.txt" "$OUT.tmp/symfs/kallsyms"
cat "$KROOT/.ok" > "$OUT.tmp/kernel.txt"
key > "$OUT.tmp/key"
TOTAL_S=$(since "$T0")
{
	echo "harness wall time: $TOTAL_S s"
	echo "  packages: $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }') s"
	echo "  kernel (apt update, download if new): $(awk -v a="$T1" -v b="$T2" 'BEGIN { printf "%.1f", b - a }') s"
	echo "  workloads + initramfs: $(awk -v a="$T2" -v b="$T3" 'BEGIN { printf "%.1f", b - a }') s"
	echo "  qemu (boot, record, write results): $QEMU_S s"
	[ -z "${PANICS:-}" ] || echo "  (the first boot's guest kernel panicked: booted twice)"
	echo "recordings (guest seconds):"
	awk -F'\t' '{ printf "  %-10s rc=%s %6s s\n", $1, $2, $3 }' "$OUT.tmp/recordings.tsv"
	if [ -f "$OUT.tmp/shelltest.txt" ]; then
		awk -F'\t' '{ printf "shell test %s (perf test): %s, %s s\n", s, $1, $2 }' s="$SHELLTEST" "$OUT.tmp/shelltest.txt"
	fi
} > "$OUT.tmp/walltime.txt"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
cat "$OUT/walltime.txt"
log "results in $OUT"
