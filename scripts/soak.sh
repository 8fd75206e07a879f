#!/usr/bin/env bash
# Soak test: every bundled scene runs SCALE (default 10) times its normal length under
# AddressSanitizer + UBSan; it must finish without error and without library-heap growth
# (live bytes at the end <= 1.25x those after the first tenth + 256 KB: contact arrays may
# grow with the contact count, a leak grows with the step count).
# usage: scripts/soak.sh BUILD_DIR [SCALE]   (make soak builds build-asan and calls this)
set -uo pipefail
build=${1:?usage: soak.sh BUILD_DIR [SCALE]} scale=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/out/soak
mkdir -p "$out"
failed=0
printf '%-28s %8s %12s %12s %s\n' scene wall_s heap_10%_MB heap_end_MB result | tee "$out/summary.txt"
for scene in "$root"/scenes/*.json; do
    name=$(basename "$scene" .json)
    start=$(date +%s.%N)
    if "$build/tactus" run "$scene" --time-scale "$scale" --every 1000000000 --out "$out/$name" > "$out/$name.log" 2>&1; then
        result=ok
    else
        result="FAILED (see out/soak/$name.log)"
    fi
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')
    read -r end early < <(sed -n 's/.*heap *\([0-9.]*\) MB live (\([0-9.]*\) MB.*/\1 \2/p' "$out/$name.log")
    if [ "$result" = ok ] && ! awk -v e="${end:-0}" -v s="${early:-0}" 'BEGIN{exit !(e <= 1.25 * s + 0.256)}'; then
        result="HEAP GREW"
    fi
    [ "$result" = ok ] || failed=1
    printf '%-28s %8.1f %12s %12s %s\n' "$name" "$wall" "${early:-?}" "${end:-?}" "$result" | tee -a "$out/summary.txt"
done
exit $failed
