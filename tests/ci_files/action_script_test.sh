#!/usr/bin/env bash
# The GitHub Action's audit script (scripts/github-action-audit) run as the runner runs it,
# with a fake GITHUB_STEP_SUMMARY and GITHUB_OUTPUT: the log carries the findings (the text
# report, findings first), the job summary a Markdown table and the findings, the outputs the
# exit status and the SARIF; paths take globs and newline lists; the inputs expect-hash,
# expect-kind, jobs and no-hash reach the tool; a glob matching nothing is an error.
#   action_script_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
source_dir=$1
export PATH="$2:$PATH"
script=$source_dir/scripts/github-action-audit
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "action_script_test: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 lacks: $2"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$1 holds: $2"; }; }

cd "$work"
mkdir -p models/a models/b/deep
cp -r "$source_dir/fixtures/vectors/v1-single" models/a/round
cp -r "$source_dir/fixtures/vectors/v1-single" models/b/deep/round
# posix.system('true') as a pickle: a security finding the log and the summary must show.
printf '\x80\x02cposix\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.' >models/b/evil.pkl

run() {  # run NAME ENV...: the script with a fresh summary and output file
  local name=$1; shift
  : >"$name.summary"; : >"$name.output"
  env GITHUB_STEP_SUMMARY="$work/$name.summary" GITHUB_OUTPUT="$work/$name.output" RUNNER_TEMP="$work" \
    SARIF="$work/$name.sarif" "$@" "$script" >"$name.log" 2>&1
}

# Near miss: clean rounds by a glob over folders pass; the log says so, the summary too.
run clean PATHS=$'models/**/round\n# a comment\n\n'
has clean.output "exit-code=0"
has clean.output "sarif-file=$work/clean.sarif"
has clean.log "models/a/round: PASS"
has clean.log "models/b/deep/round: PASS"
has clean.log "2 artifacts: 2 passed, 0 failed"
has clean.summary "### ckpt\\-audit: every input passed"
has clean.summary "| models/a/round | PASS | 0 | 0 | 0 | lensemble |"
lacks clean.summary "#### Findings"
[ -s clean.sarif ] || fail "no SARIF written"

# A failing input in a newline list: the finding is in the log (first) and in the summary.
run evil PATHS=$'models/a/round\nmodels/b/*.pkl' FAIL_ON=error
has evil.output "exit-code=1"
first=$(head -n 1 evil.log)
[[ "$first" == "models/b/evil.pkl@2: error: GLOBAL at byte 2 imports posix.system"* ]] || fail "the log does not start with the finding: $first"
has evil.log "models/b/evil.pkl: FAIL"
has evil.summary "### ckpt\\-audit: 1 of 2 inputs failed"
has evil.summary "| models/b/evil\\.pkl | **FAIL** |"
has evil.summary "#### Findings"
has evil.summary "\\[pickle\\-global\\-unsafe CHECKPOINT\\_INTEGRITY\\]"
grep -q '"ruleId": *"pickle-global-unsafe"' evil.sarif || fail "the SARIF lacks the finding"
# Annotations in the log (issue 51): the finding on its file, where code scanning is not enabled.
has evil.log "::error file=models/b/evil.pkl,title=ckpt-audit pickle-global-unsafe::GLOBAL at byte 2 imports posix.system"
lacks clean.log "::error file="
# A name holding a comma, a colon and a newline cannot end the property or start a command.
mkdir -p 'odd'
printf '\x80\x02cposix\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.' >$'odd/a,b:c\n::warning::x.pkl'
run odd PATHS=$'odd'
has odd.log "::error file=odd/a%2Cb%3Ac\\u000a%3A%3Awarning%3A%3Ax.pkl,title="
grep -q '^::warning::x' odd.log && fail "a file name started a workflow command"

# expect-kind, expect-hash, jobs and no-hash reach the tool.
run kinds PATHS=models/b/evil.pkl EXPECT_KIND="safetensors lensemble" JOBS=1
has kinds.log "[input-kind-unexpected"
sha=$(sha256sum models/b/evil.pkl | cut -c1-64)
run pinned PATHS=models/b/evil.pkl EXPECT_HASH="$(printf '%064d' 0)"
has pinned.log "[hash-unexpected"
run pinned_ok PATHS=models/b/evil.pkl EXPECT_HASH="$sha"
lacks pinned_ok.log "[hash-unexpected"
run nohash PATHS=models/a/round NO_HASH=true
has nohash.log "[hash-not-verified"

# Issue 46: shards picked one by one by a glob are each refused, naming the folder to audit;
# the README's example (model folders whole, `models/*/`) audits the folder.
cp -r "$source_dir/fixtures/vectors/v1-sharded" models/sharded
rm models/sharded/weights-00001-of-00003.safetensors  # a shard missing: shard by shard it passed
run shards PATHS='models/sharded/*.safetensors'
has shards.output "exit-code=1"
has shards.log "[input-shard-alone"
has shards.log "Audit the folder 'models/sharded' instead."
run folders PATHS='models/sharded/'
has folders.output "exit-code=1"
lacks folders.log "[input-shard-alone"
has folders.log "models/sharded/: FAIL"

# Bad inputs are errors that say why, exit 2, nothing audited.
if run none PATHS='models/**/*.gguf'; then fail "a glob matching nothing passed"; fi
has none.log "paths: 'models/**/*.gguf' matches nothing"
if run bad PATHS=models/a/round NO_HASH=maybe; then fail "no-hash maybe passed"; fi
has bad.log "no-hash is 'maybe', not true or false"
# The script's own temporary files (the summary and the annotations) are gone after each run.
leftover=$(find "$work" -maxdepth 1 -name 'ckpt-audit-*.*' -print)
[ -z "$leftover" ] || fail "temporary files left in RUNNER_TEMP: $leftover"
echo "action_script_test: the log, the summary and the outputs carry the findings"
