#!/usr/bin/env bash
# Renders the HTML report of each tool in headless Chromium (one browser for every page,
# tests/html/chromium_pages.py) and takes a screenshot of each,
# so anyone can look at them:
#   tests/html/screenshots.sh [BIN_DIR] [OUT_DIR]
# BIN_DIR holds the built tools (default build/ci/bin), OUT_DIR receives <page>.html and
# <page>.png (default build/screenshots). Fixtures are generated here: a 40-round history with
# a gap, a fork and tampered rounds (ckpt-make-history), a diff of two of its rounds, an audit
# of three of them, and the same three tools over names holding markup, quotes, '&' and a
# bidi control. Fails (exit 1) when a page does not render, when Chromium logs any console
# message (a script that ran, a resource the Content-Security-Policy blocked, an error), or
# when a hostile page's DOM holds an element the input named. A control page that logs a
# console error must be caught, or the check itself is broken.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$root/build/ci/bin}" && pwd)
out=${2:-$root/build/screenshots}
mkdir -p "$out"
out=$(cd "$out" && pwd)
chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chromium" ]]; then
  echo "screenshots: chromium is not installed (scripts/install-deps --test installs it)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- fixtures
"$bin/ckpt-make-history" "$work/history" 40 --gap 13 --gap 14 --fork 21 --tamper 5 --tamper 30 >/dev/null
hostile=$'x<script>alert(1)<&"\'\u202e<img src=x onerror=alert(2)>'  # no '/': it names files
mkdir -p "$work/hostile"
"$bin/ckpt-make-history" "$work/hostile/rounds" 3 >/dev/null
mv "$work/hostile/rounds/round-0001" "$work/hostile/rounds/round-0001-$hostile"
cp -r "$work/hostile/rounds/round-0002" "$work/hostile/art-$hostile"
printf 'x' > "$work/hostile/art-$hostile/stray-$hostile"

# --- pages (exit 1 is expected: the fixtures hold findings)
page() {  # page NAME TOOL ARGS...
  local name=$1 tool=$2
  shift 2
  local status=0
  "$bin/$tool" --format html -o "$out/$name.html" "$@" || status=$?
  if [[ $status -gt 1 ]]; then
    echo "screenshots: $tool exited $status for $name" >&2
    exit 1
  fi
}
page ckpt-audit ckpt-audit "$work/history/round-0004" "$work/history/round-0005" "$work/history/round-0015"
page ckpt-diff ckpt-diff --max-rel-l2 encoder=0 --max-rel-l2 'predictor.*=0.5' "$work/history/round-0020" \
  "$work/history/round-0021"
page ckpt-chain ckpt-chain "$work/history"
page hostile-audit ckpt-audit "$work/hostile/art-$hostile"
page hostile-diff ckpt-diff "$work/hostile/rounds/round-0000" "$work/hostile/art-$hostile"
page hostile-chain ckpt-chain "$work/hostile/rounds"
# Two control pages: a console error, and an inline script the page's Content-Security-Policy
# blocks (the reports' own policy). Each must be caught, or the console check is broken.
printf '<!DOCTYPE html><html><body><p>control</p><script>console.error("control-page-error")</script></body></html>\n' \
  > "$work/control.html"
printf '%s\n' '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="script-src '"'none'"'">' \
  '</head><body><p>blocked</p><script>document.title="ran"</script></body></html>' > "$work/control-csp.html"

# --- Chromium, one process for every page: a screenshot, the console, the DOM
names=(ckpt-audit ckpt-diff ckpt-chain hostile-audit hostile-diff hostile-chain)
pages=("$work/control.html:$work/control.png:$work/control.log:$work/control.dom"
       "$work/control-csp.html:$work/control-csp.png:$work/control-csp.log:$work/control-csp.dom")
for name in "${names[@]}"; do pages+=("$out/$name.html:$out/$name.png:$work/$name.log:$work/$name.dom"); done
/usr/bin/python3 "$root/tests/html/chromium_pages.py" "$chromium" "$work/profile" "${pages[@]}" || {
  echo "screenshots: Chromium could not render the pages" >&2
  exit 1
}
failed=0
if ! grep -q 'CONSOLE console-api error: control-page-error' "$work/control.log"; then
  echo "screenshots: the control page's console error was not seen: the console check is broken" >&2
  exit 1
fi
if ! grep -q 'CONSOLE .*Content Security Policy' "$work/control-csp.log"; then
  echo "screenshots: the blocked script of the CSP control page was not reported: the console check is broken" >&2
  exit 1
fi
for name in "${names[@]}"; do
  if [[ ! -s "$out/$name.png" ]] || [[ $(stat -c %s "$out/$name.png") -lt 10000 ]]; then
    echo "screenshots: $name.png is missing or blank" >&2
    failed=1
  fi
  if grep -a 'CONSOLE' "$work/$name.log" >&2; then
    echo "screenshots: $name logged a console message (above)" >&2
    failed=1
  fi
  elements=$(grep -aoiE '<(script|img|iframe|object|embed)[ >]' "$work/$name.dom" || true)
  if [[ -n "$elements" ]]; then
    echo "screenshots: $name's DOM holds elements no report writes: $elements" >&2
    failed=1
  fi
  echo "$out/$name.png"
done
# What a reader sees first, as the browser built it: the chain page's story and its first
# finding (the tampering at round 5, the root cause), and the diff page's gate marks.
chain_dom=$(cat "$work/ckpt-chain.dom")
story='round 39 does not trace to genesis: tampered at 5, gap at 13-14, fork at 21, tampered at 30.'
if ! grep -qF "<b class=\"story\">$story</b>" <<<"$chain_dom"; then
  echo "screenshots: the chain page does not tell its story first" >&2
  failed=1
fi
first=$(tr '\n' ' ' <<<"$chain_dom" | grep -oE '<ol class="findings causes">.{0,400}' | grep -oE '<code>[a-z0-9-]+</code>' | head -n 1)
if [[ "$first" != "<code>hash-mismatch</code>" ]]; then
  echo "screenshots: the chain page's first finding is $first, not the root cause hash-mismatch" >&2
  failed=1
fi
if ! grep -q '<tr class="gate">' "$work/ckpt-diff.dom"; then
  echo "screenshots: the diff page marks no tensor that broke a gate" >&2
  failed=1
fi
exit $failed
