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
    # A shorter run into the same directory leaves none of the longer run's frames behind
    # (other files there are kept).
    touch "$out/frame_notes.txt" "$out/frame_12.vtp"
    "$tactus" run "$src/scenes/default.json" --steps 10 --every 10 --out "$out" > "$work/log2.txt"
    [ "$(ls "$out"/frame_*.vtp | wc -l)" -eq 3 ] || fail "stale frames kept: $(ls "$out"/frame_*.vtp | tr '\n' ' ')"
    [ -f "$out/frame_000001.vtp" ] && [ ! -f "$out/frame_000002.vtp" ] || fail "wrong frames kept: $(ls "$out")"
    [ -f "$out/frame_notes.txt" ] && [ -f "$out/frame_12.vtp" ] || fail "removed a file that is not a frame"
    grep -q "removed 2 frame files of an earlier run" "$work/log2.txt" || fail "no note of the removed frames"
    ;;
traction_map)
    # qr_press: tractions.csv of every quasi sample, rendered to a PNG whose load matches the weight.
    "$tactus" run "$src/scenes/qr_press.json" --time 1 --every 1000 --out "$work/out" > "$work/log.txt"
    csv=$work/out/tractions.csv
    [ -f "$csv" ] || fail "no tractions.csv"
    head -1 "$csv" | grep -q '^body,x,y,z,traction,displacement$' || fail "tractions.csv header: $(head -1 "$csv")"
    awk -F, 'NR > 1 && $5 > 0 {n++} END {exit !(n >= 20)}' "$csv" || fail "fewer than 20 samples carry traction"
    awk -F, 'NR > 1 && ($5 < 0 || $5 != $5) {exit 1}' "$csv" || fail "negative or NaN traction"
    if command -v python3 > /dev/null; then
        python3 "$src/tools/quasi/traction_map.py" "$csv" "$work/map.png" 200 > "$work/map.txt"
        head -c 8 "$work/map.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "map.png is not a PNG"
        grep -q 'peak traction' "$work/map.txt" || fail "traction_map.py printed $(cat "$work/map.txt")"
    fi
    "$tactus" run "$src/scenes/default.json" --steps 5 --out "$work/rigid" > /dev/null
    [ ! -f "$work/rigid/tractions.csv" ] || fail "tractions.csv written without quasi bodies"
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
checkpoint_resume)
    # A run interrupted by its checkpoint at step 90 (after the removal at 1 s), resumed to step
    # 150, ends in the same state and with the same outputs as an uninterrupted run.
    scene=$src/scenes/events.json
    a=$("$tactus" run "$scene" --steps 150 --every 10 --out "$work/a" --hash | grep '^hash ')
    "$tactus" run "$scene" --steps 90 --every 10 --checkpoint-every 30 --out "$work/b" > /dev/null
    [ -f "$work/b/checkpoint.tcck" ] || fail "no checkpoint written"
    cp "$work/b/checkpoint.tcck" "$work/step90.tcck"
    b=$("$tactus" resume "$work/b/checkpoint.tcck" --steps 150 --hash | tee "$work/resume.txt" | grep '^hash ')
    grep -q 'resuming .* at step 90 of 150' "$work/resume.txt" || fail "resume did not start at step 90"
    [ "$a" = "$b" ] || fail "resumed hash $b differs from uninterrupted $a"
    # same frames and metrics (the wall-time column aside)
    diff <(cut -d, -f1-5,7- "$work/a/metrics.csv") <(cut -d, -f1-5,7- "$work/b/metrics.csv") > /dev/null \
        || fail "resumed metrics.csv differs"
    cmp -s "$work/a/frame_000015.vtp" "$work/b/frame_000015.vtp" || fail "resumed frame 15 differs"
    diff "$work/a/events.pvd" "$work/b/events.pvd" > /dev/null || fail "resumed .pvd differs"
    # resumed into another directory, from another working directory: its .pvd lists every
    # frame where it is (the earlier ones stay in b/), as many as the uninterrupted run's; its
    # checkpoints go there, and b/'s checkpoint is left alone
    before=$(cksum < "$work/b/checkpoint.tcck")
    (cd / && "$tactus" resume "$work/step90.tcck" --steps 150 --out "$work/c" > /dev/null) || fail "resume --out failed"
    [ "$(cksum < "$work/b/checkpoint.tcck")" = "$before" ] || fail "resume --out rewrote the original checkpoint"
    [ -f "$work/c/checkpoint.tcck" ] || fail "resume --out wrote no checkpoint in its directory"
    grep -o 'file="[^"]*"' "$work/c/events.pvd" | sed 's/^file="//; s/"$//' > "$work/c_frames.txt"
    [ "$(wc -l < "$work/c_frames.txt")" -eq "$(grep -c 'file=' "$work/a/events.pvd")" ] ||
        fail "resumed --out .pvd lists $(wc -l < "$work/c_frames.txt") frames"
    while read -r f; do
        case "$f" in /*) p=$f ;; *) p=$work/c/$f ;; esac
        [ -f "$p" ] || fail "resumed --out .pvd lists a missing frame $f"
    done < "$work/c_frames.txt"
    # a damaged checkpoint is refused with a message naming the file
    head -c 300 "$work/b/checkpoint.tcck" > "$work/cut.tcck"
    if "$tactus" resume "$work/cut.tcck" 2> "$work/err.txt"; then fail "truncated checkpoint accepted"; fi
    grep -q "cut.tcck: .*truncated" "$work/err.txt" || fail "unclear error: $(cat "$work/err.txt")"
    echo garbage > "$work/bad.tcck"
    if "$tactus" resume "$work/bad.tcck" 2> "$work/err.txt"; then fail "garbage accepted"; fi
    grep -q "bad.tcck: header: not a Tactus checkpoint" "$work/err.txt" || fail "unclear error: $(cat "$work/err.txt")"
    ;;
checkpoint_killed)
    # SIGKILL a run that writes a checkpoint every step: whatever instant it dies, the checkpoint
    # and every frame on disk are whole (temp file + rename), and the run resumes from there.
    scene=$src/scenes/events.json
    for delay in 0.05 0.1 0.2; do
        rm -rf "$work/k"
        timeout -s KILL $delay "$tactus" run "$scene" --steps 100000 --every 1 --checkpoint-every 1 --out "$work/k" \
            > /dev/null 2>&1 || true
        [ -f "$work/k/checkpoint.tcck" ] || continue # killed before the first checkpoint
        for f in "$work"/k/frame_*.vtp; do tail -1 "$f" | grep -q '</VTKFile>' || fail "$f is truncated"; done
        # --steps 1 is refused after the restore (which checks the state hash) with the step the
        # checkpoint holds; resuming for one more step from there must work.
        if "$tactus" resume "$work/k/checkpoint.tcck" --steps 1 > "$work/r.txt" 2>&1; then fail "resume --steps 1 ran"; fi
        at=$(grep -o 'already at step [0-9]*' "$work/r.txt" | grep -o '[0-9]*$') ||
            fail "checkpoint after SIGKILL does not restore: $(cat "$work/r.txt")"
        "$tactus" resume "$work/k/checkpoint.tcck" --steps $((at + 1)) > "$work/r.txt" 2>&1 ||
            fail "checkpoint after SIGKILL does not resume: $(cat "$work/r.txt")"
        resumed=1
    done
    [ -n "${resumed:-}" ] || { echo "the machine was too slow to write one checkpoint in 0.2 s"; exit 77; }
    ;;
run_edges)
    # Step counts that are not representable are refused naming the flag; a time shorter than a
    # step runs one step.
    scene=$src/scenes/default.json
    for arg in "--time 1e300" "--time-scale 1e300"; do
        set +e; "$tactus" run "$scene" $arg --out "$work/o" > /dev/null 2> "$work/err.txt"; rc=$?; set -e
        [ $rc -eq 2 ] || fail "run $arg: exit $rc"
        grep -q "tactus: ${arg% *} 1e+300.*steps of .* (at most 1000000000)" "$work/err.txt" || fail "run $arg: $(cat "$work/err.txt")"
    done
    [ ! -e "$work/o" ] || fail "a refused run created its output directory"
    "$tactus" run "$scene" --time 0.001 --out "$work/short" > "$work/log.txt"
    grep -q 'steps            1$' "$work/log.txt" || fail "--time 0.001: $(grep steps "$work/log.txt")"
    if "$tactus" run "$scene" --threads 9999 2> "$work/err.txt"; then fail "--threads 9999 accepted"; fi
    grep -q "^tactus: --threads must be in \[1, 256\] (got 9999)$" "$work/err.txt" || fail "threads: $(cat "$work/err.txt")"
    "$tactus" run --help | grep -q 'out/STEM for SCENE = path/STEM.json' || fail "run --help output default"
    # one step counter: the world's own (1 = the first step)
    printf '{"world":{"energy_limit":1e-6},"bodies":[{"type":"rigid","position":[0,0,1],"shapes":[{"type":"sphere","radius":0.5}]}]}' \
        > "$work/unstable.json"
    if "$tactus" run "$work/unstable.json" --out "$work/u" > /dev/null 2> "$work/err.txt"; then fail "unstable run succeeded"; fi
    grep -q "^tactus: world: step 1: kinetic energy" "$work/err.txt" || fail "step error: $(cat "$work/err.txt")"
    # resume --steps before the checkpoint is an error, not a silent no-op
    "$tactus" run "$src/scenes/events.json" --steps 60 --every 60 --checkpoint-every 60 --out "$work/ck" > /dev/null
    set +e; "$tactus" resume "$work/ck/checkpoint.tcck" --steps 10 > /dev/null 2> "$work/err.txt"; rc=$?; set -e
    [ $rc -eq 2 ] || fail "resume --steps 10: exit $rc"
    grep -q "already at step 60" "$work/err.txt" || fail "resume: $(cat "$work/err.txt")"
    if "$tactus" render --help > /dev/null 2>&1; then
        set +e; "$tactus" render "$scene" --out "$work/x.png" --video 2> "$work/err.txt"; rc=$?; set -e
        [ $rc -eq 2 ] || fail "render --video with a .png: exit $rc"
        grep -q -- "--video needs --out DIR" "$work/err.txt" || fail "render: $(cat "$work/err.txt")"
    fi
    ;;
run_signals)
    # SIGINT / SIGTERM stop a run between steps; it still writes its .pvd and metrics.csv. (A
    # script's background job starts with SIGINT ignored; tactus run catches it all the same.)
    # One small sphere, a frame every 500 steps, and a KILL after 30 s bound the disk used if
    # the signal were ignored.
    printf '{"bodies":[{"type":"rigid","shapes":[{"type":"sphere","radius":0.5}]}]}' > "$work/ball.json"
    for sig in INT TERM; do
        out=$work/$sig
        timeout -s KILL 30 "$tactus" run "$work/ball.json" --steps 100000000 --every 500 --out "$out" > "$work/log.txt" 2> "$work/err.txt" &
        pid=$!
        for _ in $(seq 400); do [ -f "$out/frame_000002.vtp" ] && break; sleep 0.05; done # in the step loop
        kill -$sig $pid
        set +e; wait $pid; rc=$?; set -e
        want=$([ $sig = INT ] && echo 130 || echo 143)
        [ $rc -eq $want ] || fail "SIG$sig: exit $rc, expected $want ($(cat "$work/err.txt"))"
        grep -q "tactus: .*(SIG$sig) at step [0-9]*" "$work/err.txt" || fail "SIG$sig message: $(cat "$work/err.txt")"
        [ -f "$out/ball.pvd" ] && [ -f "$out/metrics.csv" ] || fail "SIG$sig: no .pvd or metrics.csv"
        steps=$(grep -o 'at step [0-9]*' "$work/err.txt" | grep -o '[0-9]*$')
        [ "$(wc -l < "$out/metrics.csv")" -eq $((steps + 2)) ] || fail "SIG$sig: metrics.csv rows != steps + 1"
        # frames 0, 500, ... and the interrupted step's unless it was one of those
        frames=$((steps / 500 + 1 + (steps % 500 != 0)))
        [ "$(grep -c '<DataSet ' "$out/ball.pvd")" -eq $frames ] || fail "SIG$sig: pvd lists $(grep -c '<DataSet ' "$out/ball.pvd") frames, not $frames"
    done
    ;;
*) fail "unknown check $check" ;;
esac
echo "ok: $check"
