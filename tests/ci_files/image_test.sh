#!/usr/bin/env bash
# The container image (Dockerfile): built with docker, podman or buildah when one of them
# works here, and its tools run; otherwise checked as written (two stages, the runtime from
# debian:12-slim holding only what the build stage assembled, a non-root user, no download
# but Debian's) and its runtime stage assembled by the same script (scripts/image-rootfs)
# from this build, the tools started in a chroot of that tree alone: a library the image
# would lack fails here.
#   image_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
source_dir=$1
bin=$2
fail() { echo "image_test: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dockerfile=$source_dir/Dockerfile

# As written.
[ "$(grep -c '^FROM ' "$dockerfile")" -eq 2 ] || fail "the Dockerfile does not have two stages"
grep -q '^FROM debian:12 AS build$' "$dockerfile" || fail "the build stage is not FROM debian:12 AS build"
grep -q '^FROM debian:12-slim AS runtime$' "$dockerfile" || fail "the runtime stage is not FROM debian:12-slim"
grep -q '^COPY --from=build /rootfs/ /$' "$dockerfile" || fail "the runtime stage does not take the assembled tree"
grep -qE '^USER 65534:65534$' "$dockerfile" || fail "the image does not run as nobody"
! grep -qE '^(ADD|RUN .*(curl|wget) )' "$dockerfile" || fail "the Dockerfile downloads something itself"
grep -q 'scripts/image-rootfs /build/bin /rootfs' "$dockerfile" || fail "the build stage does not run scripts/image-rootfs"
[ -x "$source_dir/scripts/image-rootfs" ] || fail "scripts/image-rootfs is missing"
grep -qx 'build/' "$source_dir/.dockerignore" || fail ".dockerignore does not leave the build tree out"

for builder in docker podman buildah; do
  command -v "$builder" >/dev/null || continue
  if [ "$builder" = buildah ]; then build=(buildah bud); else build=("$builder" build); fi
  if "${build[@]}" -t ckpt-audit-test "$source_dir" >"$work/build.log" 2>&1; then
    run=("$builder" run --rm)
    [ "$builder" = buildah ] && run=(podman run --rm)
    "${run[@]}" ckpt-audit-test --version | grep -q '^ckpt-audit ' || fail "the image's ckpt-audit does not run"
    echo "image_test: built and ran the image with $builder"
    exit 0
  fi
  echo "image_test: $builder cannot build here ($(tail -n 1 "$work/build.log")); checking the stages instead"
done

# The runtime stage, assembled from this build and run with nothing but itself.
"$source_dir/scripts/image-rootfs" "$bin" "$work/rootfs" --with-libc
[ -d /etc/ssl/certs ] && mkdir -p "$work/rootfs/etc" && cp -rL /etc/ssl "$work/rootfs/etc/ssl"
cp -r "$source_dir/fixtures/vectors/v1-single" "$work/rootfs/round"
# A sanitizer build (.ci/run's second pass) needs /proc, which the tree has not: it runs on the
# tree's own loader instead (the image ships a plain build, which the chroot checks).
sanitized=$(ldd "$bin/ckpt-audit" | grep -c 'libasan\|libubsan' || true)
in_tree() {
  if [ "$(id -u)" -eq 0 ] && command -v chroot >/dev/null && [ "$sanitized" -eq 0 ]; then
    chroot "$work/rootfs" "$@"
  else  # no chroot without root: the tree's own loader, with only the tree's libraries
    local loader
    loader=$(find "$work/rootfs" -name 'ld-linux*.so*' | head -n 1)
    local dirs
    dirs=$(find "$work/rootfs" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)
    "$loader" --inhibit-cache --library-path "$dirs" "$work/rootfs$1" "${@:2}"
  fi
}
for tool in ckpt-audit ckpt-chain ckpt-diff ckpt-convert; do
  in_tree "/usr/local/bin/$tool" --version | grep -q "^$tool " || fail "$tool does not start in the runtime tree"
done
round=/round
if ! { [ "$(id -u)" -eq 0 ] && command -v chroot >/dev/null && [ "$sanitized" -eq 0 ]; }; then round=$work/rootfs/round; fi
out=$(in_tree /usr/local/bin/ckpt-audit "$round") || fail "ckpt-audit does not audit in the runtime tree: $out"
grep -qF "$round: PASS" <<<"$out" || fail "the audit in the runtime tree did not pass: $out"
# The libraries opened at run time are there too (remote reads, X.509 paths).
[ -n "$(find "$work/rootfs" -name 'libcurl.so.4*')" ] || fail "libcurl.so.4 is not in the runtime tree"
[ -n "$(find "$work/rootfs" -name 'libcrypto.so.3*')" ] || fail "libcrypto.so.3 is not in the runtime tree"
echo "image_test: the runtime stage runs the tools with nothing but its own files"
