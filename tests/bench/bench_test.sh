#!/usr/bin/env bash
# scripts/bench keeps working: a run at 1/64 of the sizes writes every figure (each a positive
# ratio of two measured times, with the machine it ran on) and prints the table; a missing
# tool is an error (exit 1), never a table with a gap; README.md's performance table is the
# rendering of the committed bench/results.json. Timing is not judged here (the perf label does).
# Usage: bench_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$root/scripts/bench" --check-readme "$root/bench/results.json"

"$root/scripts/bench" --no-build --build "$build" --scale 64 --out "$work/bench.json" >"$work/out.txt"
grep -q '^| What | Tool | Instead | Ratio | Growth |$' "$work/out.txt"
/usr/bin/python3 - "$work/bench.json" "$root/bench/results.json" <<'PY'
import json, sys
run, committed = (json.load(open(p)) for p in sys.argv[1:3])
ids = [f["id"] for f in run["figures"]]
want = ["audit.speed_limit", "audit.openssl_dgst", "load.audit", "folder.openssl_dgst", "folder.one_file", "diff.speed_limit",
        "diff.openssl_dgst", "diff.numpy", "pickle.pickletools", "pickle.load", "tar.tar_tvf", "zip.unzip_l",
        "remote.curl_sha256sum", "remote.curl_openssl", "kernel.sha256", "kernel.diff_stats", "growth.shards",
        "growth.tensors", "growth.inputs", "growth.rounds", "growth.pickle", "growth.gguf"]
assert ids == want, ids
assert [f["id"] for f in committed["figures"]] == want, "bench/results.json is from another version of scripts/bench"
for f in run["figures"]:
    assert f["ours_seconds"] >= 0 and f["instead_seconds"] > 0 and f["ratio"] > 0, f
for f in run["figures"]:
    if f["id"].startswith("growth."):
        assert len(f["sizes"]) == len(f["seconds"]) == len(f["peak_mib"]) == 3, f
        assert f["sizes"] == sorted(f["sizes"]) and all(t > 0 for t in f["seconds"]), f
        assert isinstance(f["exponent"], float) and f["instead_peak_mib"] > 0, f
assert run["scale"] == 64 and committed["scale"] == 1
assert run["machine"]["cores"] >= 1 and run["machine"]["openssl_sha256_bytes_per_second"] > 0, run["machine"]
print(f"bench_test: {len(ids)} figures")
PY

# A tool that is not there: exit 1, saying which.
mkdir -p "$work/empty/bin"
status=0
"$root/scripts/bench" --no-build --build "$work/empty" --out "$work/none.json" 2>"$work/err.txt" || status=$?
[ "$status" -eq 1 ] || { echo "bench_test: a missing tool gave exit $status, not 1" >&2; exit 1; }
grep -q "ckpt-audit is missing" "$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
[ ! -e "$work/none.json" ] || { echo "bench_test: a failed run wrote figures" >&2; exit 1; }

# The README check fails on a table that is not the rendering (one ratio edited).
sed 's/^\(| Lensemble audit, [^|]*| ckpt-audit | openssl dgst -sha256 | \)[0-9.]*/\19.999/' "$root/README.md" \
  >"$work/README.md"
! cmp -s "$root/README.md" "$work/README.md" || { echo "bench_test: the near miss edited nothing" >&2; exit 1; }
status=0
"$root/scripts/bench" --check-readme "$root/bench/results.json" --readme-file "$work/README.md" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "bench_test: an edited table passed the README check ($status)" >&2; exit 1; }
echo "bench_test: passed"
