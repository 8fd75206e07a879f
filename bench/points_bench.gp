# Plot of bench/points_bench output: gnuplot -e "csv='points_bench.csv'; out='points_bench.png'" bench/points_bench.gp
# Optionally base='before.csv' overlays an earlier run (e.g. of the previous commit) for comparison.
if (!exists("csv")) csv = 'points_bench.csv'
if (!exists("out")) out = 'points_bench.png'
set terminal pngcairo size 800,500
set output out
set datafile separator ','
set key top left reverse Left
set xlabel 'colliding surfels (both bodies)'
set ylabel 'contact handling per sub-step (ms)'
set grid
if (exists("base")) {
    plot csv using 2:4 skip 1 with linespoints title 'surfel contact (contact surface + forces + distribution), least', \
         csv using 2:5 skip 1 with linespoints dashtype 4 title 'median', \
         base using 2:4 skip 1 with linespoints dashtype 3 title 'before', \
         2 with lines dashtype 2 title '2 ms goal'
} else {
    plot csv using 2:4 skip 1 with linespoints title 'surfel contact (contact surface + forces + distribution), least', \
         csv using 2:5 skip 1 with linespoints dashtype 4 title 'median', \
         2 with lines dashtype 2 title '2 ms goal'
}
