#!/usr/bin/env bash
# CLI checks registered with CTest by tests/cli.cmake.
# usage: cli_checks.sh CHECK TACTUS_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
check=$1 tactus=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

case "$check" in
run_outputs)
    "$tactus" run "$src/scenes/default.json" --steps 30 --every 10 --out "$work/out" > "$work/log.txt"
    out=$work/out
    [ -f "$out/default.pvd" ] || fail "no default.pvd"
    [ -f "$out/metrics.csv" ] || fail "no metrics.csv"
    # Frames 0, 10, 20, 30, each listed in the .pvd and each a complete PolyData file.
    [ "$(ls "$out"/frame_*.vtp | wc -l)" -eq 4 ] || fail "expected 4 frames, got $(ls "$out"/frame_*.vtp | wc -l)"
    [ "$(grep -c '<DataSet ' "$out/default.pvd")" -eq 4 ] || fail "pvd does not list 4 datasets"
    grep -q '</VTKFile>' "$out/default.pvd" || fail "pvd incomplete"
    for f in $(grep -o 'file="[^"]*"' "$out/default.pvd" | cut -d'"' -f2); do
        [ -f "$out/$f" ] || fail "pvd lists missing $f"
        head -2 "$out/$f" | grep -q '<VTKFile type="PolyData"' || fail "$f is not PolyData"
        tail -1 "$out/$f" | grep -q '</VTKFile>' || fail "$f is truncated"
        polys=$(grep -o 'NumberOfPolys="[0-9]*"' "$out/$f" | grep -o '[0-9]*')
        [ "$polys" -gt 0 ] || fail "$f has no polygons"
    done
    ls "$out"/*.tmp 2>/dev/null && fail "temp files left behind"
    head -1 "$out/metrics.csv" | grep -q '^time,kinetic_energy,potential_energy,contact_count,max_penetration,step_wall_time' \
        || fail "metrics.csv header: $(head -1 "$out/metrics.csv")"
    [ "$(wc -l < "$out/metrics.csv")" -eq 32 ] || fail "metrics.csv should have header + 31 rows"
    # Every row has as many columns as the header.
    awk -F, 'NR==1{n=NF} NF!=n{exit 1}' "$out/metrics.csv" || fail "ragged metrics.csv"
    grep -q 'steps            30' "$work/log.txt" || fail "summary lacks the step count"
    grep -q "output           $out/default.pvd" "$work/log.txt" || fail "summary lacks the output dir"
    ;;
hash_repeatable)
    a=$("$tactus" run "$src/scenes/default.json" --steps 40 --every 40 --out "$work/a" --hash | grep '^hash ')
    b=$("$tactus" run "$src/scenes/default.json" --steps 40 --every 40 --out "$work/b" --hash | grep '^hash ')
    [[ "$a" =~ ^hash\ [0-9a-f]{16}$ ]] || fail "bad hash line '$a'"
    [ "$a" = "$b" ] || fail "hash differs between runs: $a vs $b"
    c=$("$tactus" run "$src/scenes/default.json" --steps 41 --every 41 --out "$work/c" --hash | grep '^hash ')
    [ "$a" != "$c" ] || fail "hash does not depend on the state"
    ;;
validate_scenes)
    n=0
    for f in "$src"/scenes/*.json "$src"/scenes/**/*.json; do
        [ -f "$f" ] || continue
        "$tactus" validate "$f" | grep -q ': OK' || fail "validate $f"
        n=$((n + 1))
    done
    [ "$n" -ge 1 ] || fail "no scenes found"
    echo "validated $n scenes"
    ;;
bad_scenes)
    printf '{"bodies": [{"type": "rigid", "mass": -1, "shapes": [{"type": "sphere", "radius": 1}]}]}' > "$work/neg.json"
    if "$tactus" validate "$work/neg.json" 2> "$work/err.txt"; then fail "validate accepted a negative mass"; fi
    grep -q "neg.json: bodies\[0\].mass: must be positive (got -1)" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
    printf '{"world": {"time_step": 0.01,}}' > "$work/syntax.json"
    if "$tactus" run "$work/syntax.json" --out "$work/o" 2> "$work/err.txt"; then fail "run accepted bad JSON"; fi
    grep -q "syntax.json: line 1: JSON syntax error" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
    if "$tactus" info "$work/missing.json" 2> "$work/err.txt"; then fail "info accepted a missing file"; fi
    grep -q "missing.json: cannot open file" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
    if "$tactus" run "$src/scenes/default.json" --steps -3 2> /dev/null; then fail "run accepted --steps -3"; fi
    if "$tactus" frobnicate 2> /dev/null; then fail "unknown command accepted"; fi
    ;;
help)
    "$tactus" --help | grep -q 'validate' || fail "top-level help"
    for c in run validate info; do
        "$tactus" "$c" --help | grep -q "usage: tactus $c" || fail "$c --help"
    done
    "$tactus" info "$src/scenes/default.json" | grep -q 'rigid' || fail "info lists no rigid body"
    ;;
vtk_reader)
    # Reads a frame back with VTK's own XML reader (Debian python3-vtk9); skipped when absent.
    py=/usr/bin/python3
    if ! "$py" -c 'import vtkmodules.vtkIOXML' 2> /dev/null; then echo "python3-vtk9 not installed: skipped"; exit 77; fi
    "$tactus" run "$src/scenes/default.json" --steps 6 --every 6 --out "$work/out" > /dev/null
    "$py" - "$work/out/frame_000001.vtp" <<'PY'
import sys
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
r = vtkXMLPolyDataReader()
r.SetFileName(sys.argv[1])
r.Update()
pd = r.GetOutput()
n, polys = pd.GetNumberOfPoints(), pd.GetNumberOfPolys()
assert polys > 0 and n == 3 * polys + pd.GetNumberOfVerts() + 2 * pd.GetNumberOfLines(), (n, polys)
color = pd.GetPointData().GetArray("color")
assert color is not None and color.GetNumberOfComponents() == 4 and color.GetNumberOfTuples() == n
assert pd.GetPointData().GetNormals().GetNumberOfTuples() == n
lo = pd.GetBounds()
# The default scene's highest body starts at z = 2.5 and falls: nothing is above 3 m.
assert lo[5] < 3.0 and lo[4] > -1.0, lo
print("vtk read", n, "points", polys, "triangles")
PY
    ;;
*) fail "unknown check $check" ;;
esac
echo "ok: $check"
