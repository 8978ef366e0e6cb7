# Rewrites the network-link aggregates of a sweep.csv (docs/formats.md) so
# that they do not grow with the machine: the study's AO and TO features are
# sums over links and its "nao" a count of links, so a machine with four
# times the links has four times their values, and a model trained on the
# smaller machine sees every run of the larger one outside its range
# (docs/case-studies.md, section 5, generalisation):
#
#   awk -F, -v links=N -f examples/culprits/scale_free.awk sweep.csv > sf.csv
#
# N: the machine's network links (directed; a torus X x Y x Z with one node
# per router: 6 X Y Z).  For every f_truth_net_* and f_inband_net_* group:
#   *_ao  -> *_ao / *_nao           the mean over the links above the average
#   *_to  -> *_to / ceil(0.05 N)    the mean over the top 5% of the links
#   *_nao -> *_nao / N              the share of links above the average
# Column names stay, so the same --features lists apply.  Every other
# column is copied.
BEGIN { OFS = "," }
NR == 1 {
    if (links == "" || links + 0 < 1) { print "scale_free.awk: give -v links=N" > "/dev/stderr"; exit 1 }
    top = int(0.05 * links); if (top < 0.05 * links) top++
    for (i = 1; i <= NF; i++) { name[i] = $i; col[$i] = i }
    for (i = 1; i <= NF; i++) {
        kind[i] = ""
        if (name[i] !~ /^f_(truth|inband)_net_/) continue
        if (name[i] ~ /_ao$/) { p = substr(name[i], 1, length(name[i]) - 3); if ((p "_nao") in col) { kind[i] = "ao"; sib[i] = col[p "_nao"] } }
        else if (name[i] ~ /_to$/) kind[i] = "to"
        else if (name[i] ~ /_nao$/) kind[i] = "nao"
    }
    print; next
}
{
    for (i = 1; i <= NF; i++) v[i] = $i
    for (i = 1; i <= NF; i++) {
        if (kind[i] == "ao") $i = v[sib[i]] + 0 > 0 ? sprintf("%.9g", v[i] / v[sib[i]]) : 0
        else if (kind[i] == "to") $i = sprintf("%.9g", v[i] / top)
        else if (kind[i] == "nao") $i = sprintf("%.9g", v[i] / links)
    }
    print
}
