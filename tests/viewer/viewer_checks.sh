#!/usr/bin/env bash
# Viewer checks registered by tests/viewer.cmake.
# usage: viewer_checks.sh CHECK TACTUS PNG_STATS SOURCE_DIR WORK_DIR
set -euo pipefail
check=$1 tactus=$2 stats=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
xvfb() { xvfb-run -a -s "-screen 0 1280x800x24" "$@"; }

case "$check" in
render_scenes) # every bundled scene renders a frame
    for scene in "$src"/scenes/*.json; do
        name=$(basename "$scene" .json)
        "$tactus" render "$scene" --out "$work/$name.png" --time 0.05 --width 320 --height 200 > /dev/null \
            || fail "$name does not render"
        read -r w h colours < <("$stats" "$work/$name.png")
        [ "$w" = 320 ] && [ "$h" = 200 ] || fail "$name: image is ${w}x$h"
        [ "$colours" -gt 5 ] || fail "$name: a blank picture ($colours colours)"
    done
    ;;
render_frames) # a frame series and, with ffmpeg, a video
    "$tactus" render "$src/scenes/default.json" --out "$work/frames" --time 0.5 --every 10 --width 320 --height 200 \
        --layers contacts,aabbs $(command -v ffmpeg > /dev/null && echo --video) > "$work/log.txt"
    [ "$(ls "$work"/frames/frame_*.png | wc -l)" -eq 4 ] || fail "expected 4 frames"
    if command -v ffmpeg > /dev/null; then [ -s "$work/frames/default.mp4" ] || fail "no video"; fi
    ls "$work"/frames/*.tmp 2> /dev/null && fail "temp files left"
    ;;
window_screenshot) # the window runs 60 frames, the screenshot is a real picture, exit is clean
    xvfb "$tactus" view "$src/scenes/default.json" --frames 60 --screenshot "$work/shot.png" > "$work/log.txt" 2>&1 \
        || { cat "$work/log.txt"; # skip only where no GL window can exist; any other failure (a crash) fails
             grep -q "no display\|cannot open an OpenGL" "$work/log.txt" && exit 77; fail "the viewer failed"; }
    read -r w h colours < <("$stats" "$work/shot.png")
    [ "$w" -gt 100 ] && [ "$h" -gt 100 ] || fail "screenshot is ${w}x$h"
    [ "$colours" -gt 50 ] || fail "blank screenshot ($colours colours)"
    ;;
window_drag) # synthetic mouse input through the viewer's own input functions lifts a body
    out=$(xvfb "$tactus" view "$src/scenes/default.json" --drag-test box_c 2>&1) || fail "drag test: $out"
    echo "$out" | grep -q "drag moved box_c" || fail "no drag report: $out"
    ;;
*) fail "unknown check $check" ;;
esac
echo "ok: $check"
