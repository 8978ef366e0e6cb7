# A synthetic table of runs in the shape of sweep.csv (docs/formats.md), to
# try `hopscope culprits` and to test and benchmark it:
#
#   awk -v runs=N -v noise=K -v seed=S -f examples/culprits/synthetic.awk > runs.csv
#
# columns: run, two descriptors (mapping, seed), time_s, then f_links_max,
# f_stalls_avg and K noise features f_noise1..K (default 8), all uniform in
# [0, 1); time_s = 3 f_links_max + 2 f_stalls_avg^2 + noise of 1% of its
# range.  The culprits are f_links_max and f_stalls_avg, in that order of
# importance.  With -v model=spread instead: time_s = f_links_max +
# 0.5 f_stalls_avg E, E exponential with mean 1: f_stalls_avg sets how far
# the slow runs lie above the fast ones (the quantile models' test).  (The
# numbers depend on the awk's rand(); the shape does not.)
BEGIN {
    if (runs == "") runs = 200;
    if (noise == "") noise = 8;
    srand(seed == "" ? 1 : seed);
    printf "run,mapping,seed,time_s,f_links_max,f_stalls_avg";
    for (j = 1; j <= noise; j++) printf ",f_noise%d", j;
    printf "\n";
    for (i = 1; i <= runs; i++) {
        a = rand(); b = rand();
        if (model == "spread")
            t = a + 0.5 * b * -log(1 - rand());
        else
            t = 3 * a + 2 * b * b + 0.05 * (rand() - 0.5);
        printf "%d,random,%d,%.6f,%.6f,%.6f", i, i, t, a, b;
        for (j = 1; j <= noise; j++) printf ",%.6f", rand();
        printf "\n";
    }
}
