#!/bin/sh
# check_report_browser.sh [CRUMPLE] — the run report (crumple run --report) as
# a real browser shows it: headless Chromium loads DIR/index.html and writes
# a screenshot (build/report-check/screenshot.png) and the DOM it built; the
# check fails unless the page's three charts and the animation are in that
# DOM. Needs chromium (CRUMPLE_BROWSER=1 sh tools/setup-debian.sh); not part
# of make test, run once after changing tools/run_report.c and look at the
# screenshot.
set -u
cli=${1:-build/bin/crumple}
out=build/report-check
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "check_report_browser: no chromium (CRUMPLE_BROWSER=1 sh tools/setup-debian.sh)"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
"$cli" run data/scenes/demo.scene --report "$out" >/dev/null || exit 1
page="file://$(cd "$out" && pwd)/index.html"
"$browser" --headless --no-sandbox --disable-gpu --window-size=1000,2400 --screenshot="$out/screenshot.png" "$page" \
    >/dev/null 2>&1 || { echo "check_report_browser: chromium failed"; exit 1; }
"$browser" --headless --no-sandbox --disable-gpu --dump-dom "$page" >"$out/dom.html" 2>/dev/null || exit 1
for id in stage-times memory events animation; do
    grep -q "id=\"$id\"" "$out/dom.html" || { echo "check_report_browser: #$id missing from the DOM"; exit 1; }
done
echo "ok   the report renders in $browser: $out/screenshot.png"
