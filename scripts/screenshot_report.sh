#!/usr/bin/env bash
# Open a cvcheck report in headless Chromium and save a screenshot; fail on page errors.
# Usage: bash scripts/screenshot_report.sh REPORT_DIR [OUT.png] [HEIGHT]
set -euo pipefail
report="${1:?usage: screenshot_report.sh REPORT_DIR [OUT.png] [HEIGHT]}"
out="${2:-report-screenshot.png}"
height="${3:-3000}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then echo "no Chromium: apt-get install chromium" >&2; exit 2; fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
log="$("$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
       --user-data-dir="$profile" --enable-logging=stderr --v=0 --window-size=1280,"$height" \
       --screenshot="$out" "file://$(cd "$report" && pwd)/index.html" 2>&1 || true)"
if grep -E -i "CONSOLE|Uncaught|net::ERR|Failed to load" <<<"$log"; then
    echo "page errors while rendering $report" >&2; exit 1
fi
[ -s "$out" ] || { echo "no screenshot written" >&2; exit 1; }
echo "screenshot: $out"
