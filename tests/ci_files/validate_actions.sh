#!/usr/bin/env bash
# Checks the GitHub Action and every shipped workflow: the schema validator
# @action-validator/cli (from npm, pinned) accepts each file, and they are written as a
# careful user writes them: third-party actions pinned by a 40-digit commit SHA with the
# version in a comment, upload-sarif v4 (not the deprecated v3), no category: input on an
# upload (the SARIF's automationDetails.id names it), uploads that run if: always() and
# skip pull requests from forks.
#   validate_actions.sh SOURCE_DIR CACHE_DIR     (exit 77: npm is not installed)
set -euo pipefail
source_dir=$1
cache=$2/action-validator
fail() { echo "validate_actions: $*" >&2; exit 1; }
command -v npm >/dev/null || { echo "validate_actions: npm is not installed" >&2; [ "${CKPT_REQUIRE_ALL:-}" = 1 ] && exit 1; exit 77; }

if [ ! -x "$cache/node_modules/.bin/action-validator" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --silent --no-audit --no-fund @action-validator/cli@0.6.0 >&2 ||
    fail "npm could not install @action-validator/cli"
fi
files=("$source_dir/action.yml" "$source_dir"/.github/workflows/*.yml)
# The workflows the docs show a user (docs/hub-scale.md's matrix over Hub repositories): each
# fenced yaml block that is a whole workflow, checked as the shipped ones are.
examples=$(mktemp -d)
trap 'rm -rf "$examples"' EXIT
python3 - "$source_dir/docs/hub-scale.md" "$examples" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if re.search(r"^jobs:", b, re.M)]
assert blocks, "docs/hub-scale.md shows no workflow"
for i, block in enumerate(blocks):
    with open(os.path.join(sys.argv[2], f"hub-scale-{i}.yml"), "w") as f:
        f.write(block)
PY
files+=("$examples"/*.yml)
for file in "${files[@]}"; do
  "$cache/node_modules/.bin/action-validator" "$file" || fail "action-validator rejects ${file#"$source_dir"/}"
  while IFS= read -r line; do
    ref=$(sed -E 's/.*uses:[[:space:]]*([^[:space:]#]+).*/\1/' <<<"$line")
    case "$ref" in ./*|docker://*) continue ;; esac
    [[ "$ref" =~ @[0-9a-f]{40}$ ]] || fail "${file#"$source_dir"/}: $ref is not pinned by commit SHA"
    [[ "$line" =~ \#[[:space:]]*v[0-9] ]] || fail "${file#"$source_dir"/}: $ref has no version comment"
    [[ "$ref" != github/codeql-action/* ]] || grep -q '# v4' <<<"$line" || fail "${file#"$source_dir"/}: codeql-action is not v4"
  done < <(grep -E '^[[:space:]-]*uses:' "$file")
  # Each upload-sarif step: if: always() and the fork guard before it, no category after it.
  python3 - "$file" <<'PY' || fail "${file#"$source_dir"/}: an upload-sarif step is not written as it must be"
import re, sys
text = open(sys.argv[1]).read()
steps = re.split(r'\n\s*- (?=name:|uses:|if:|id:)', text)
for step in steps:
    if 'upload-sarif@' not in step:
        continue
    assert re.search(r'if:.*always\(\)', step), 'no if: always()'
    assert 'head.repo.full_name == github.repository' in step, 'no fork guard'
    assert not re.search(r'^\s*category:', step, re.M), 'a category: input'
PY
done
# The release workflow: a version tag publishes the portable archive built the one way
# (scripts/build-portable), tried before it is published, the Debian package and a .sha256 per
# asset, with write access only where the release is created.
python3 - "$source_dir/.github/workflows/release.yml" <<'PY' || fail ".github/workflows/release.yml is not the release it must be"
import sys, yaml
flow = yaml.safe_load(open(sys.argv[1]))
on = flow.get(True, flow.get("on"))  # YAML 1.1 reads the key `on` as true
assert on == {"push": {"tags": ["v*"]}}, "not run on version tags alone: %r" % on
assert flow["permissions"] == {"contents": "read"}, "the workflow's token is not read-only"
build, publish = flow["jobs"]["build"], flow["jobs"]["publish"]
assert build.get("container") == "debian:12", "the archive is not built in debian:12"
runs = "\n".join(step.get("run", "") for step in build["steps"])
assert "scripts/build-portable" in runs, "the archive is not built by scripts/build-portable"
assert "env -i " in runs, "the archive is not tried before it is published"
assert "cpack -G DEB" in runs, "no Debian package"
assert "sha256sum" in runs and ".sha256" in runs, "no .sha256 per asset"
assert "GITHUB_REF_NAME" in runs or "github.ref_name" in str(build), "the tag is not checked against the version"
assert publish.get("needs") == "build" and publish["permissions"] == {"contents": "write"}, "publish is not the only writer"
assert "gh release create" in "\n".join(step.get("run", "") for step in publish["steps"]), "nothing publishes the release"
PY
echo "validate_actions: ${#files[@]} files valid"
