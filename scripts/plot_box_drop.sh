#!/usr/bin/env bash
# Seed 004 figure 9: runs box_drop with the Gauss-map method and with contact tracking and
# plots penetration and alignment error of both over time (log axis) into a PNG.
# usage: scripts/plot_box_drop.sh [BUILD_DIR] [OUT_DIR]     (make box-drop-plot)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build} out=${2:-$root/out/box_drop}
mkdir -p "$out"
for s in box_drop box_drop_tracking; do
    "$build/tactus" run "$root/scenes/$s.json" --out "$out/$s" > /dev/null
done
command -v gnuplot > /dev/null || { echo "gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
g=$out/box_drop/metrics.csv t=$out/box_drop_tracking/metrics.csv
# columns: 1 time, 7 box_penetration, 8 box_alignment, 9 kinetic_energy; zeros are lifted to 1e-12 for the log axis
gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 1200,800 noenhanced
set output "$out/box_drop.png"
set multiplot layout 3,1 title "Box dropped on a plane (seed 004, figure 9): Gauss map vs contact tracking"
set logscale y
set format y "%.0e"
set key top right
set grid
f(x) = x > 1e-12 ? x : 1e-12
set ylabel "penetration (m)"
plot "$g" every ::1 using 1:(f(\$7)) with lines lw 2 title "Gauss map", "$t" every ::1 using 1:(f(\$7)) with lines lw 2 title "tracking"
set ylabel "alignment error (rad)"
plot "$g" every ::1 using 1:(f(\$8)) with lines lw 2 title "Gauss map", "$t" every ::1 using 1:(f(\$8)) with lines lw 2 title "tracking"
set ylabel "kinetic energy (J)"
set xlabel "time (s)"
plot "$g" every ::1 using 1:(f(\$9)) with lines lw 2 title "Gauss map", "$t" every ::1 using 1:(f(\$9)) with lines lw 2 title "tracking"
unset multiplot
GP
echo "plot: $out/box_drop.png"
