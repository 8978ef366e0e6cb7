#!/bin/sh
# hopscope render: pictures of real analyses (fat-tree, dragonfly, torus,
# topology file), valid XML, deterministic, the layouts recognisable, bad
# input refused, two runs compared, and headless Chromium drawing them
# (screenshot not blank, legend bar present in its colours).
. tests/integration/lib.sh
PNG="$BUILD/tests/helpers/png_check"
T="$T_TMP"

run() { # NAME simulate-args...: simulate and analyze into $T/NAME
    n=$1; shift
    "$HOPSCOPE" simulate "$@" -o "$T/$n" >"$T/$n.sim" 2>&1 &&
        "$HOPSCOPE" analyze "$T/$n" -q >"$T/$n.an" 2>&1
}

run ft --topo fattree:k=4,n=3 --traffic incast:target=0,senders=8,bg=0.3 --load 0.6
t_eq "fat-tree run analysed" 0 $?
run df --topo dragonfly:a=4,p=2,h=2,g=9 --traffic hotspot:target=5,frac=0.3 --load 0.5 --duration 10us
t_eq "dragonfly run analysed" 0 $?
run file --topo file:examples/viz/leafspine.topo --traffic incast:target=13,senders=8,bg=0.3 --load 0.5
t_eq "topology-file run analysed" 0 $?
"$HOPSCOPE" gen halo3d --ranks 64 --iters 10 --size 64K -o "$T/halo" --quiet
run tr --topo torus:4x4x4 -i "$T/halo" --map random
t_eq "torus replay (random mapping) analysed" 0 $?
run tl --topo torus:4x4x4 -i "$T/halo"
t_eq "torus replay (linear mapping) analysed" 0 $?
# a replay with other jobs beside it and phases named by a file (16 ranks of
# all-to-all + halo, 2 iterations): a halo phase of 256 packets spread
# thin has no link whose own estimate decides
"$HOPSCOPE" gen pf3d --ranks 16 --iters 2 -o "$T/pf" --quiet
printf 'tag 100-101 west-east\ntag 102-103 north-south\ntag 104-105 up-down\ncollective alltoall transpose\n' >"$T/phases.txt"
"$HOPSCOPE" simulate --topo fattree:k=4,n=3 -i "$T/pf" --map random --background mixed:frac=0.5 \
    -o "$T/bg" --quiet >"$T/bg.sim" 2>&1 && "$HOPSCOPE" analyze "$T/bg" --phases "$T/phases.txt" -q
t_eq "replay with background and a phases file analysed" 0 $?

for n in ft df file tr bg; do
    "$HOPSCOPE" render "$T/$n" -q
    t_eq "render $n" 0 $?
done
"$HOPSCOPE" render "$T/tr" --compare "$T/tl" --label random --compare-label linear -o "$T/cmp" -q
t_eq "render --compare" 0 $?
"$HOPSCOPE" render "$T/df/analysis.json" --detail aggregate -o "$T/dfagg" -q
t_eq "render --detail aggregate" 0 $?

# every document is well-formed XML (report.html is polyglot XHTML)
bad=""
for f in "$T"/*/*.svg "$T"/*/report.html; do
    xmllint --noout "$f" 2>>"$T/xmllint.err" || bad="$bad $f"
done
t_eq "every SVG and report.html passes xmllint" "" "$bad"
nsvg=$(ls "$T"/*/*.svg | wc -l)
[ "$nsvg" -ge 20 ] && t_ok "$nsvg SVG files checked" || t_fail "$nsvg SVG files checked" "expected at least 20"

# the layouts an HPC user recognises
t_grep "fat-tree drawn in levels" '>level 3<' "$T/ft/network.svg"
t_grep "fat-tree: the incast root with its numbers" 'l1s0→n0 \(ejection\), link 65' "$T/ft/network.svg"
grep -q 'root of a congestion tree (R1)' "$T/ft/network.svg"; t_eq "fat-tree: root tooltip" 0 $?
t_grep "dragonfly drawn as groups on a ring" '>g8<' "$T/df/network.svg"
t_grep "dragonfly: global links named" '\(global\), link' "$T/df/network.svg"
t_grep "dragonfly aggregated: group bands" 'group 0: local links' "$T/dfagg/network.svg"
[ -f "$T/dfagg/network-detail.svg" ] && t_ok "dragonfly aggregated: detail of the worst groups" ||
    t_fail "dragonfly aggregated: detail of the worst groups"
t_grep "torus: planes" '>plane z=3<' "$T/tr/network.svg"
t_grep "torus: projections" '>projection on x-z \(all y\)<' "$T/tr/network.svg"
t_grep "torus: phases as small multiples" '>tag 105<' "$T/tr/phases.svg"
t_grep "topology file drawn in tiers" '>tier 2<' "$T/file/network.svg"
t_grep "nodes labelled with their ranks" 'ranks [0-9]' "$T/tr/network.svg"
t_grep "latency chart" 'Message latency' "$T/tr/latency.svg"
t_grep "latency chart draws the distribution" 'histograms of message latency' "$T/tr/latency.svg"
t_grep "time per phase" 'Time per phase' "$T/tr/phase-times.svg"
t_grep "congestion over time" 'Congestion over time' "$T/ft/windows.svg"
t_grep "comparison picture" 'Two runs side by side' "$T/cmp/compare.svg"
t_grep "comparison table" 'Two runs compared' "$T/cmp/report.html"

# the report: the diagnosis first, then the pictures, accuracy, the commands
r="$T/ft/report.html"
dpos=$(grep -bo 'id="diagnosis"' "$r" | head -1 | cut -d: -f1)
npos=$(grep -bo 'id="network"' "$r" | head -1 | cut -d: -f1)
[ -n "$dpos" ] && [ -n "$npos" ] && [ "$dpos" -lt "$npos" ] && t_ok "report: diagnosis before pictures" ||
    t_fail "report: diagnosis before pictures" "diagnosis at $dpos, network at $npos"
t_grep "report: the finding" 'Incast into node n0' "$r"
t_grep "report: accuracy against truth" 'id="accuracy"' "$r"
t_grep "report: the command" "hopscope render $T/ft -q" "$r"
if grep -q '<script\|src="http\|href="http' "$r"; then t_fail "report is self-contained"; else t_ok "report is self-contained"; fi

# the report's phases: empty ones in one line, not as panels; other jobs'
# phases have no time in MPI ("-", not "0 ns"); numbers keep their units
r="$T/bg/report.html"
t_grep "phases without data named in one line" 'No link has enough data in 1 phase of the application [^<]*: west-east\.' "$r"
if grep -q '>west-east</text>' "$T/bg/phases.svg"; then t_fail "no empty panel for west-east"; else t_ok "no empty panel for west-east"; fi
t_grep "panels for the phases with data" '>transpose</text>' "$T/bg/phases.svg"
t_grep "other jobs' phases: time in MPI is -" '<td class="n">background alltoall</td><td>background</td><td class="n">[0-9]+</td><td class="n">[0-9.]+&#160;[kMG]?B</td><td class="n">-</td>' "$r"
if grep -q '0&#160;ns\|>0 ns<' "$r"; then t_fail "no '0 ns' in the report"; else t_ok "no '0 ns' in the report"; fi
t_grep "p99 with its unit on one line" '<td class="n">[0-9.]+&#160;us</td>' "$r"

# every node named in a finding is labelled in the picture (class "mark", or
# its own label when it has no ranks), and nothing else is marked but the
# ends of the roots R1..R12
for n in ft df file tr bg; do
    said=$(grep -o '"summary": *"[^"]*"' "$T/$n/analysis.json")
    names=$(echo "$said" | grep -o '\bn[0-9][0-9]*\b' | sort -u)
    missing=""
    for nm in $names; do grep -q ">$nm</text>" "$T/$n/network.svg" || missing="$missing $nm"; done
    t_eq "$n: every node named in a finding is labelled ($(echo $names | wc -w) named)" "" "$missing"
    roots=$(grep -o '<tr><td>R\([1-9]\|1[0-2]\)</td><td>[^<]*' "$T/$n/report.html" | sed 's/.*<td>//; s/ (.*//; s/; /\n/g' |
        sed 's/\xe2\x86\x92/\n/g')
    extra=""
    for mk in $(grep -o 'class="mark"[^>]*>[^<]*' "$T/$n/network.svg" | sed 's/.*>//' | sort -u); do
        echo "$roots" | grep -qx "$mk" || echo "$said" | grep -q "[^a-zA-Z0-9_.]$mk[^a-zA-Z0-9_]" ||
            extra="$extra $mk"
    done
    t_eq "$n: only devices the report names are marked" "" "$extra"
done
t_grep "torus: a finding's node named in the picture" 'class="mark"[^>]*>n58<' "$T/tr/network.svg"

# determinism: the same analysis and command render to the same bytes
cp -r "$T/cmp" "$T/cmp1"
"$HOPSCOPE" render "$T/tr" --compare "$T/tl" --label random --compare-label linear -o "$T/cmp" -q
diffs=""
for f in "$T"/cmp1/*; do cmp -s "$f" "$T/cmp/$(basename "$f")" || diffs="$diffs $(basename "$f")"; done
t_eq "render is deterministic" "" "$diffs"

# bad input is refused with a clear message
"$HOPSCOPE" render "$T/nosuch" 2>"$T/err"; rc=$?
t_eq "missing input exits 1" 1 $rc
t_grep "missing input named" 'nosuch' "$T/err"
mkdir -p "$T/bad"
printf '{"format":"hopscope-analysis","version":1,"topology":' >"$T/bad/analysis.json"
"$HOPSCOPE" render "$T/bad" 2>"$T/err"; rc=$?
t_eq "truncated analysis.json exits 1" 1 $rc
t_grep "truncated: file and offset" 'analysis.json: offset [0-9]+' "$T/err"
sed 's/"version":1,/"version":7,/' "$T/ft/analysis.json" >"$T/bad/analysis.json"
"$HOPSCOPE" render "$T/bad" 2>"$T/err"; rc=$?
t_eq "unknown version exits 1" 1 $rc
t_grep "unknown version named" 'version 7 is not understood' "$T/err"
"$HOPSCOPE" render "$T/ft/manifest.json" 2>"$T/err"; rc=$?
t_eq "another file format exits 1" 1 $rc
t_grep "another format named" 'not a hopscope analysis' "$T/err"
"$HOPSCOPE" render 2>"$T/err"; t_eq "no argument exits 2" 2 $?
"$HOPSCOPE" render "$T/ft" --detail some 2>"$T/err"; t_eq "bad --detail exits 2" 2 $?
t_grep "bad --detail named" 'auto, full or aggregate' "$T/err"

# headless Chromium draws them: not blank, the legend's colour bar present
CHROMIUM=$(command -v chromium || command -v chromium-browser)
shoot() { # URL OUT.png
    prof=$(mktemp -d "$T/prof.XXXXXX")
    timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$prof" --window-size=1400,1000 \
        --screenshot="$2" "$1" >"$T/chromium.log" 2>&1
}
# probe PAGE.html WIDTH: the page (whose last lines are </body> and </html>)
# at WIDTH px with a script (added to a copy: the report has none) that measures, after layout, how wide the page is and
# which elements reach past its right edge or scroll sideways; prints
# "LAYOUT inner=W client=C scroll=S bad=N what... END"
probe() {
    pg="$T/probe.$2.html"
    { grep -v '^</body>$\|^</html>$' "$1"; echo '<script>'; cat "$T/probe.js"; echo '</script>'
      echo '</body>'; echo '</html>'; } >"$pg"
    prof=$(mktemp -d "$T/prof.XXXXXX")
    timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --window-size="$2,900" --dump-dom "file://$(readlink -f "$pg")" \
        2>"$T/chromium.log" | grep -o 'LAYOUT.*END'
}
cat >"$T/probe.js" <<'EOF'
(function () {
  var W = document.documentElement.clientWidth, bad = [];
  var all = document.body.getElementsByTagName('*');
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.ownerSVGElement) continue;
    var r = el.getBoundingClientRect(), what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
    if (r.width > 0 && r.right > W + 0.5) bad.push(what + ':right=' + Math.round(r.right));
    if (getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1)
      bad.push(what + ':scrolls=' + el.scrollWidth + '/' + el.clientWidth);
  }
  var p = document.createElement('pre');
  p.textContent = 'LAYOUT inner=' + window.innerWidth + ' client=' + W + ' scroll=' +
    document.documentElement.scrollWidth + ' bad=' + bad.length + ' ' + bad.slice(0, 6).join(' ') + ' END';
  document.body.appendChild(p);
})();
EOF
if [ -z "$CHROMIUM" ]; then
    echo "# SKIP Chromium tests: no chromium or chromium-browser (mk/deps.sh installs it)"
else
    # the report fits windows of 1024, 1400 and 1920 px: nothing wider than
    # the page, nothing scrolling sideways
    for n in ft df tr bg cmp; do
        for w in 1024 1400 1920; do
            out=$(probe "$T/$n/report.html" $w)
            case "$out" in
                "LAYOUT inner=$w "*" bad=0 "*) t_ok "Chromium: $n report fits $w px" ;;
                *) t_fail "Chromium: $n report fits $w px" "$out" ;;
            esac
        done
    done
    # the probe itself: a table wider than the window, and a picture that
    # scrolls inside its box, are found
    printf '<html><body><table><tr><td style="white-space:nowrap">%0800d</td></tr></table><div style="overflow:auto;width:300px"><svg width="900" height="10"></svg></div>\n</body>\n</html>\n' 0 >"$T/wide.html"
    out=$(probe "$T/wide.html" 1024)
    case "$out" in
        *" bad=0 "*|"") t_fail "Chromium: the layout probe finds overflow" "$out" ;;
        *"table:right="*"div:scrolls="*) t_ok "Chromium: the layout probe finds overflow" ;;
        *) t_fail "Chromium: the layout probe finds overflow" "$out" ;;
    esac
    for n in ft df tr; do
        shoot "file://$(readlink -f "$T/$n/network.svg")" "$T/$n.png"
        out=$("$PNG" "$T/$n.png" --legend); rc=$?
        t_eq "Chromium: $n network.svg drawn with its legend ($out)" 0 $rc
    done
    shoot "file://$(readlink -f "$T/ft/report.html")" "$T/report.png"
    out=$("$PNG" "$T/report.png"); rc=$?
    t_eq "Chromium: report.html not blank ($out)" 0 $rc
    prof=$(mktemp -d "$T/prof.XXXXXX")
    timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --dump-dom "file://$(readlink -f "$T/ft/report.html")" \
        >"$T/dom.html" 2>"$T/chromium.log"
    t_grep "Chromium: the report's DOM holds the legend" 'id="net-legend"' "$T/dom.html"
    # the checker itself: a blank page and a picture without the bar fail
    echo '<html><body></body></html>' >"$T/blank.html"
    shoot "file://$T/blank.html" "$T/blank.png"
    "$PNG" "$T/blank.png" >/dev/null; t_eq "png_check refuses a blank page" 1 $?
    shoot "file://$(readlink -f "$T/tr/latency.svg")" "$T/lat.png"
    "$PNG" "$T/lat.png" --legend >/dev/null; t_eq "png_check finds no bar where there is none" 1 $?
fi
exit $t_failed
