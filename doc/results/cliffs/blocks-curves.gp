# Draws blocks-curves.png from points.csv (gnuplot blocks-curves.gp, here):
# each swept kernel's time on the blocks axis over its best.
set terminal pngcairo size 900,560 noenhanced
set output "blocks-curves.png"
set logscale y
set yrange [0.9:20]
set grid
set key outside right
set xlabel "blocks per SM (elastic grid)"
set ylabel "kernel time / its best"
set title "Suite kernels on an H200: time against blocks per SM"
kernels = system("awk -F, 'NR > 1 && $3 == \"blocks\" { n[$2]++ } END { for (k in n) if (n[k] >= 3) print k }' points.csv | sort")
curve(k) = sprintf("< awk -F, -v k='%s' '$2 == k && $3 == \"blocks\" { print $4, $5 }' points.csv | sort -n", k)
best(k) = real(system(sprintf("awk -F, -v k='%s' '$2 == k && $3 == \"blocks\" && (b == \"\" || $5 < b) { b = $5 } END { print b }' points.csv", k)))
short(k) = system(sprintf("echo '%s' | sed -E 's/^_Z[0-9]+//; s/P.*//'", k))
plot for [k in kernels] curve(k) using 1:($2 / best(k)) with linespoints title short(k)
