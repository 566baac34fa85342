#!/usr/bin/env bash
# scripts/ci-tools, which the Action and the GitLab component run to get the tools: the cache
# key (a clone's commit; in a copy without .git, the SHA-256 of its files, which changes with
# any file; the pinned archive's SHA-256), the build in a debian:12 container on a runner that
# cannot build (docker stood in for by a script that checks how it is called and packs the
# ci tree's tools as the build would), a cache hit that runs no container, a stale cache
# replaced, and refusals with exit 2 for bad settings and for a runner with no way to the tools.
#   ci_tools_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
source_dir=$1
bin_dir=$2
fail() { echo "ci_tools_test: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The key of a copy without .git: stable, and different after any change.
mkdir "$work/source"
git -C "$source_dir" ls-files -z | (cd "$source_dir" && xargs -0 cp --parents -t "$work/source")
tools=$work/source/scripts/ci-tools
first=$("$tools" --source-id)
[[ "$first" =~ ^tree-[0-9a-f]{64}$ ]] || fail "the key of a copy without .git is '$first'"
[ "$("$tools" --source-id)" = "$first" ] || fail "the key of the same files changed"
echo "// changed" >>"$work/source/lib/CMakeLists.txt"
[ "$("$tools" --source-id)" != "$first" ] || fail "the key did not change with a file"
clone_id=$(git -C "$source_dir" rev-parse HEAD)
if [ -z "$(git -C "$source_dir" status --porcelain --untracked-files=no)" ]; then
  [ "$("$source_dir/scripts/ci-tools" --source-id)" = "$clone_id" ] || fail "a clean clone's key is not its commit"
fi
sha=$(printf 'a%.0s' {1..64})
[ "$(CKPT_ARCHIVE_URL=https://example.invalid/a.tar.gz CKPT_ARCHIVE_SHA256=$sha "$tools" --source-id)" = "archive-$sha" ] ||
  fail "a pinned archive's key is not its SHA-256"

refused() {  # refused TEXT ENV... -- ARGS: ci-tools exits 2 and says TEXT
  local text=$1 status=0
  shift
  local settings=()
  while [ "$1" != -- ]; do settings+=("$1"); shift; done
  shift
  env "${settings[@]}" "$tools" "$@" >"$work/out" 2>"$work/err" || status=$?
  [ "$status" -eq 2 ] && grep -qF -- "$text" "$work/err" || fail "expected exit 2 and '$text', got $status: $(cat "$work/err")"
}
refused "needs both its URL and its SHA-256" CKPT_ARCHIVE_URL=https://example.invalid/a.tar.gz -- --source-id
refused "needs both its URL and its SHA-256" CKPT_ARCHIVE_SHA256=$sha -- --source-id
refused "not 64 lowercase hex digits" CKPT_ARCHIVE_URL=x "CKPT_ARCHIVE_SHA256=$(printf 'AB\n::error::x')" -- --source-id
refused "'a;b?rm' is not a commit or a name" "CKPT_SOURCE_ID=$(printf 'a;b\nrm')" -- --source-id
refused "not here or container" CKPT_BUILD_IN=elsewhere -- "$work/cache"

# A stand-in for docker: checks the source is mounted read-only and the build is the portable
# one, then writes what scripts/build-portable would leave in /build (an archive of tools).
mkdir "$work/fake-bin"
cat >"$work/fake-bin/docker" <<EOF
#!/usr/bin/env bash
echo "\$*" >>"$work/docker.calls"
[ "\$1" = run ] || exit 3
case "\$*" in
  *"rm -rf /work/build"*) exit 0 ;;
  *":/src:ro "*"debian:12 /src/scripts/build-portable /build -DCKPT_BUILD_TESTS=OFF"*) ;;
  *) echo "unexpected docker call: \$*" >&2; exit 3 ;;
esac
build=\$(sed -E 's/.* -v ([^ ]*):\/build .*/\1/' <<<"\$*")
mkdir -p "$work/pack/ckpt-audit-0-Linux/usr/bin"
cp "$bin_dir"/ckpt-* "$work/pack/ckpt-audit-0-Linux/usr/bin/"
tar -czf "\$build/ckpt-audit-0-Linux.tar.gz" -C "$work/pack" ckpt-audit-0-Linux
EOF
chmod +x "$work/fake-bin/docker"
export PATH="$work/fake-bin:$PATH"
cache=$work/cache
got=$(CKPT_BUILD_IN=container "$tools" "$cache" 2>"$work/err" | tail -n 1) || fail "the container build failed: $(cat "$work/err")"
[ "$got" = "$cache/tools/usr/bin" ] || fail "ci-tools printed '$got'"
grep -q "in a debian:12 container" "$work/err" || fail "the log does not say where it built: $(cat "$work/err")"
[ "$(cat "$cache/id")" = "$("$tools" --source-id)" ] || fail "the cache is not marked with the source's key"
"$got/ckpt-audit" "$source_dir/fixtures/vectors/v1-single" >/dev/null || fail "the built tools do not audit a clean round"
[ ! -e "$cache"/fill.* ] 2>/dev/null || fail "ci-tools left its work folder in the cache"
calls=$(wc -l <"$work/docker.calls")
CKPT_BUILD_IN=container "$tools" "$cache" >/dev/null 2>"$work/err" || fail "the cache hit failed: $(cat "$work/err")"
grep -q 'restored from the cache' "$work/err" || fail "a cache hit built again: $(cat "$work/err")"
[ "$(wc -l <"$work/docker.calls")" -eq "$calls" ] || fail "a cache hit ran a container"
echo "tree-0000" >"$cache/id"  # another version's tools
CKPT_BUILD_IN=container "$tools" "$cache" >/dev/null 2>"$work/err" || fail "a stale cache was not rebuilt: $(cat "$work/err")"
grep -q 'in a debian:12 container' "$work/err" || fail "a stale cache was used: $(cat "$work/err")"
# Nowhere to get the tools: told to build in a container, and no docker or podman on PATH.
mkdir "$work/plain-bin"
for command in bash cat sed git find sort xargs sha256sum mktemp mkdir rm id grep dirname env; do
  ln -s "$(command -v "$command")" "$work/plain-bin/$command"
done
refused "none can be had here" CKPT_BUILD_IN=container "PATH=$work/plain-bin" -- "$work/empty-cache"
[ ! -e "$work/empty-cache/tools" ] || fail "a runner with no way to the tools got some"
echo "ci_tools_test: keys, a container build, a cache hit without a container, a stale cache replaced, refusals"
