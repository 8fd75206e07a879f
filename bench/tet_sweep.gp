# Plot of `tet_peers_bench --sweep` rows: ms/step over the contact steps against the deepest
# penetration, Tactus and Bullet, Bullet's rows split by whether they inverted any tet.
#   gnuplot -e "csv='tet_sweep_9720.csv'; out='tet_sweep_9720.png'" bench/tet_sweep.gp
# CSV columns: tets,engine,sub_steps,piterations,viterations,kvc,ms_step_contact,ms_step_all,
#              max_pen_mm,inside_max,inverted_max,apart,contact_steps,steps
if (!exists("csv")) csv = 'tet_sweep_9720.csv'
if (!exists("out")) out = 'tet_sweep_9720.png'
set terminal pngcairo size 900,560
set output out
set datafile separator ','
set key inside right top box opaque
set title 'two tet boxes head-on: cost against contact quality (' . csv . ')' noenhanced
set xlabel 'max penetration over the run (mm)'
set ylabel 'ms/step over the contact steps (thread CPU)'
set logscale y
set grid
# rows that blew up (penetration of metres, kVC = 1e6 at 1-2 sub-steps) are off the chart
if (!exists("xmax")) xmax = 110
set xrange [-3:xmax]
set label 1 sprintf('rows beyond %g mm (blown up) not drawn', xmax) at graph 0.98, graph 0.04 right font ',8'
# Bullet's clean rows are labelled "sub-steps x position iterations".
# row filters: the y value, or NaN (not drawn) when the row is not in the group
tactus(y) = strcol(2) eq 'tactus' ? y : NaN
clean(y) = strcol(2) eq 'bullet' && column(11) == 0 ? y : NaN
inverting(y) = strcol(2) eq 'bullet' && column(11) > 0 ? y : NaN
plot csv using 9:(tactus($7)) skip 1 with points pt 7 ps 1.6 lc rgb '#1f77b4' title 'Tactus (0 inverted tets)', \
     csv using 9:(tactus($7)):(sprintf('%d sub', $3)) skip 1 with labels offset 1.2,0.6 left font ',8' notitle, \
     csv using 9:(clean($7)) skip 1 with points pt 9 ps 1.3 lc rgb '#2ca02c' title 'Bullet, 0 inverted tets', \
     csv using 9:(inverting($7)) skip 1 with points pt 2 ps 1.1 lc rgb '#d62728' title 'Bullet, inverted tets > 0', \
     csv using 9:(clean($7)):(sprintf('%d sub x %d it', $3, $4)) skip 1 with labels offset 1.2,0 left font ',7' notitle
