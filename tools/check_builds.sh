#!/usr/bin/env bash
# Cross-build determinism check: the same results from every compiler and every code path.
#
# Builds, each in build-check/<name>/ (Release, warnings as errors, no viewer):
#   gcc       the normal gcc build (AVX2 clones and the AVX2 support scan on an AVX2 machine)
#   clang     clang (no target clones: its own vectoriser on the baseline loops)
#   portable  gcc -DTACTUS_PORTABLE_PATHS=ON: plain loops, portable support scan, plain-array lanes
#             (the code of non-x86 or non-GNU builds)
#   noavx2    gcc -DTC_NO_VECTOR_CLONES -DTC_SUPPORT_NO_AVX2: what an x86-64 CPU without AVX2 runs
#             (baseline clones, scalar support scan, SSE2 placement, SSE2 vector lanes)
#   debug     gcc Debug (-O0: nothing inlined unless forced; it once caught vectors passed
#             between an AVX2 clone and baseline code, a crash the optimised builds hid)
# Runs the test suite in all but gcc (`make test` covers gcc), then every scenes/*.json for STEPS
# (30) steps with --hash in each build, and, when the benches are built (only if Bullet, ODE and
# libccd are installed), `narrowphase_bench 20` (its manifold hash) and `points_bench --points 20`
# (a hash of its printed contact samples). One line per scene or bench; exits 1 if a hash differs
# between builds, a run fails or a test fails. Logs: build-check/logs/.
#
# A `threads` column reruns each scene in the first build with --threads THREADS (3): the results
# must not depend on the thread count (docs/pipeline.md, Threads), so a difference fails the check.
#
# A last column, `libm`, reruns the gcc build with glibc's FMA/AVX2 variants of exp, sin, cos,
# acos, atan2 masked (GLIBC_TUNABLES): the libm of a CPU without FMA. Those variants differ in the
# last bit for about 1 argument in 1,500, so a scene may differ there; that column is reported
# ("libm") but fails the check only with STRICT_LIBM=1 (docs/conventions.md, Precision).
#
# usage: tools/check_builds.sh   (env: JOBS=2 STEPS=30 BUILDS="gcc clang portable noavx2 debug" LIBM=1 THREADS=3)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
top=$root/build-check
logs=$top/logs
JOBS=${JOBS:-2}
STEPS=${STEPS:-30}
BUILDS=${BUILDS:-gcc clang portable noavx2 debug}
LIBM=${LIBM:-1}
THREADS=${THREADS:-3}
threads_column=0 # set while the scenes are compared
STRICT_LIBM=${STRICT_LIBM:-0}
NOFMA_LIBM=glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4
mkdir -p "$logs"
status=0

bench=OFF
if pkg-config --exists bullet ode ccd 2> /dev/null; then bench=ON; fi

# configure_and_build NAME CC TESTS(ON/OFF) [extra cmake flags...]
configure_and_build() {
    local name=$1 cc=$2 tests=$3
    shift 3
    local dir=$top/$name
    if ! CC=$cc cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTACTUS_WARNINGS_AS_ERRORS=ON \
        -DTACTUS_BUILD_VIEWER=OFF -DTACTUS_BUILD_TESTS="$tests" -DTACTUS_BUILD_BENCH=$bench "$@" \
        > "$logs/$name.configure.log" 2>&1; then
        echo "build $name: configure FAILED (see $logs/$name.configure.log)"
        return 1
    fi
    if ! cmake --build "$dir" -j"$JOBS" > "$logs/$name.build.log" 2>&1; then
        echo "build $name: build FAILED (see $logs/$name.build.log)"
        return 1
    fi
    echo "build $name: ok ($cc)"
}

run_tests() {
    local name=$1
    # the -O0 debug build runs the heavy scenario tests ~5x slower (test_degenerate_deformables:
    # 21 s in Release, 110 s in debug alone, past the 300 s default on a loaded machine)
    local timeout=300
    [ "$name" = debug ] && timeout=1500
    if (cd "$top/$name" && ctest -j"$JOBS" --timeout "$timeout" --output-on-failure) > "$logs/$name.test.log" 2>&1; then
        echo "tests $name: $(grep -o '[0-9]*% tests passed.*' "$logs/$name.test.log")"
    else
        echo "tests $name: FAILED (see $logs/$name.test.log)"
        return 1
    fi
}

built=()
for name in $BUILDS; do
    case $name in
    gcc) configure_and_build gcc gcc OFF ;;
    clang) configure_and_build clang clang ON ;;
    portable) configure_and_build portable gcc ON -DTACTUS_PORTABLE_PATHS=ON ;;
    noavx2) configure_and_build noavx2 gcc ON "-DCMAKE_C_FLAGS=-DTC_NO_VECTOR_CLONES -DTC_SUPPORT_NO_AVX2" ;;
    debug) configure_and_build debug gcc ON -DCMAKE_BUILD_TYPE=Debug ;;
    *) echo "unknown build '$name' (gcc, clang, portable, noavx2, debug)"; false ;;
    esac && built+=("$name") || status=1
done
for name in "${built[@]}"; do
    if [ "$name" != gcc ]; then run_tests "$name" || status=1; fi
done

# compare LABEL CMD...: `CMD... BUILD_DIR` prints that build's hash; prints one line for all builds.
compare() {
    local label=$1 line first="" differ=0 libm_differ=0 h name
    shift
    line=$(printf '%-26s' "$label")
    for name in "${built[@]}"; do
        h=$("$@" "$top/$name" 2>> "$logs/runs.log") || h="FAILED"
        [ -n "$h" ] || h="FAILED"
        [ "$h" = FAILED ] && differ=1
        if [ -z "$first" ]; then first=$h; line+=" $name $h"
        elif [ "$h" = "$first" ]; then line+=" $name same"
        else line+=" $name $h"; differ=1; fi
    done
    if [ $threads_column = 1 ] && [ "$THREADS" -gt 1 ]; then
        h=$(CHECK_THREADS=$THREADS "$@" "$top/${built[0]}" 2>> "$logs/runs.log") || h="FAILED"
        if [ "$h" = "$first" ]; then line+=" threads=$THREADS same"; else line+=" threads=$THREADS $h"; differ=1; fi
    fi
    if [ "$LIBM" = 1 ] && [ "${built[0]}" = gcc ]; then
        h=$(GLIBC_TUNABLES=$NOFMA_LIBM "$@" "$top/gcc" 2>> "$logs/runs.log") || h="FAILED"
        if [ "$h" = "$first" ]; then line+=" libm same"; else line+=" libm $h"; libm_differ=1; fi
    fi
    if [ $differ = 1 ]; then echo "$line  DIFFERS"; status=1
    elif [ $libm_differ = 1 ]; then echo "$line  (libm only)"; [ "$STRICT_LIBM" = 1 ] && status=1
    else echo "$line"; fi
    return 0
}

# Called through compare (shellcheck cannot see that).
# shellcheck disable=SC2317
scene_hash() { # SCENE BUILD_DIR (env CHECK_THREADS: world.threads)
    "$2/tactus" run "$1" --steps "$STEPS" --hash ${CHECK_THREADS:+--threads "$CHECK_THREADS"} --out "$2/check-out/$(basename "$1" .json)" |
        tail -n 1 | sed 's/^hash //'
}
# shellcheck disable=SC2317
narrowphase_hash() { "$1/bench/narrowphase_bench" 20 | grep -o 'hash [0-9a-f]*' | cut -d' ' -f2; }
# shellcheck disable=SC2317
points_hash() { "$1/bench/points_bench" --points 20 | sha1sum | cut -c1-16; }

: > "$logs/runs.log"
[ ${#built[@]} -gt 0 ] || exit 1
threads_column=1
for scene in "$root"/scenes/*.json; do
    compare "$(basename "$scene" .json)" scene_hash "$scene"
done
threads_column=0
if [ $bench = ON ]; then
    compare "narrowphase_bench 20" narrowphase_hash
    compare "points_bench --points 20" points_hash
else
    echo "benches skipped (Bullet, ODE or libccd not installed)"
fi
[ $status = 0 ] && echo "check-builds: every hash agrees" || echo "check-builds: FAILED"
exit $status
