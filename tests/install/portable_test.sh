#!/usr/bin/env bash
# The portable release archive: configures the CKPT_PORTABLE build, packs it with
# cpack -G TGZ, unpacks it and checks what a user on Ubuntu 22.04/24.04 or Debian 12/13 gets:
# every binary depends on nothing but glibc (and libcurl.so.4 / libcrypto.so.3, which the
# tools open at run time), no symbol above GLIBC_2.35, and the unpacked tools audit a
# Lensemble fixture and an ONNX model (whose classes the portable build generates itself).
#   portable_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1
build=$2/portable
fail() { echo "portable_test: $*" >&2; exit 1; }
# Warnings as errors as in the ci tree: its flags, so the compiler cache serves the objects.
archive=$("$source_dir/scripts/build-portable" "$build" -DCKPT_WARNINGS_AS_ERRORS=ON 2>"$build.log") ||
  fail "scripts/build-portable failed: $(tail -n 30 "$build.log")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
allowed='^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|/lib64/ld-linux-x86-64\.so\.2|libcurl\.so\.4|libcrypto\.so\.3)$'
count=0
while IFS= read -r binary; do
  count=$((count + 1))
  while read -r lib; do
    [[ "$lib" =~ $allowed ]] || fail "${binary#"$work"/} needs $lib, which not every target distribution ships"
  done < <(ldd "$binary" | awk '{print $1}')
  newest=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -n 1)
  [ "$(printf '%s\n2.35\n' "$newest" | sort -t. -k1,1n -k2,2n | tail -n 1)" = 2.35 ] ||
    fail "${binary#"$work"/} needs GLIBC_$newest, newer than Ubuntu 22.04's 2.35"
done < <(find "$work" -type f -path '*/bin/*')
# One multi-call binary (ckpt-audit) and the HDF5 helper; the other tools are links to it.
[ "$count" -eq 2 ] || fail "the archive holds $count binaries, not the multi-call ckpt-audit and ckpt-h5probe"
tool=$(find "$work" -type f -name ckpt-audit -path '*/bin/*')
bin=$(dirname "$tool")
[ -x "$bin/ckpt-h5probe" ] || fail "ckpt-h5probe is not beside ckpt-audit"
for name in ckpt-chain ckpt-convert ckpt-diff; do
  [ "$(readlink "$bin/$name")" = ckpt-audit ] || fail "$name is not a link to ckpt-audit"
  "$bin/$name" --help >"$work/help.txt" || fail "$name --help failed"
  head -n 1 "$work/help.txt" | grep -q "^Usage: $name " || fail "$name does not run as itself: $(head -n 1 "$work/help.txt")"
done
ln -s "$tool" "$work/ckpt-other"
status=0
"$work/ckpt-other" --help >/dev/null 2>"$work/other.txt" || status=$?
[ "$status" -eq 2 ] && grep -q 'runs the tool it is named as' "$work/other.txt" ||
  fail "the binary under another name did not refuse (exit $status): $(cat "$work/other.txt")"
"$tool" "$source_dir/fixtures/vectors/v1-single" >"$work/out.txt" || fail "the archive's ckpt-audit fails a clean round: $(cat "$work/out.txt")"
/usr/bin/python3 - "$work/model.onnx" <<'PY'
import sys, onnx
from onnx import helper, TensorProto
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
onnx.save(helper.make_model(graph), sys.argv[1])
PY
"$tool" "$work/model.onnx" >"$work/onnx.txt" || fail "the archive's ckpt-audit fails an ONNX model: $(cat "$work/onnx.txt")"
grep -q 'kind onnx' "$work/onnx.txt" || fail "the ONNX model was not read as ONNX: $(cat "$work/onnx.txt")"
# A bare root holding only glibc's loader, libc and libm and the unpacked archive (what a plain
# Ubuntu or Debian image has at the least): the tools audit a round and diff two there, with an
# empty environment. A chroot as root, else in a user namespace.
root=$work/bare-root
mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/tmp"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
cp -L /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libm.so.6 "$root/lib/x86_64-linux-gnu/"
tar -xzf "$archive" -C "$root" --strip-components=1
cp -r "$source_dir/fixtures/vectors/v1-single" "$root/round"
cp -r "$source_dir/fixtures/vectors/v1-single" "$root/copy"
if [ "$(id -u)" -eq 0 ]; then in_root=("$(command -v chroot)" "$root"); else in_root=("$(command -v unshare)" --map-root-user "$(command -v chroot)" "$root"); fi
env -i "${in_root[@]}" /usr/bin/ckpt-audit /round >"$work/bare.txt" 2>&1 ||
  fail "ckpt-audit does not audit a round in a root of glibc alone: $(cat "$work/bare.txt")"
grep -q 'PASS' "$work/bare.txt" || fail "the bare-root audit did not pass: $(cat "$work/bare.txt")"
env -i "${in_root[@]}" /usr/bin/ckpt-diff -q /round /copy >"$work/bare.txt" 2>&1 ||
  fail "ckpt-diff does not compare two rounds in a root of glibc alone: $(cat "$work/bare.txt")"

# scripts/ci-tools as the Action and the GitLab component run it with a pinned release: the
# download is checked against its SHA-256 and unpacked into the cache; the next run restores it
# from the cache without fetching anything (the URL is gone) and the tools run with an empty
# environment; a wrong pin unpacks nothing.
sha=$(sha256sum "$archive" | sed 's/ .*//')
cp "$archive" "$work/release.tar.gz"
cache=$work/ci-cache
ci_bin=$(CKPT_ARCHIVE_URL="file://$work/release.tar.gz" CKPT_ARCHIVE_SHA256=$sha \
         "$source_dir/scripts/ci-tools" "$cache" 2>"$work/ci.log" | tail -n 1) ||
  fail "ci-tools could not install the pinned archive: $(cat "$work/ci.log")"
[ "$ci_bin" = "$cache/tools/usr/bin" ] || fail "ci-tools printed '$ci_bin', not the cache's bin folder"
grep -q "archive SHA-256 $sha" "$work/ci.log" || fail "ci-tools did not log the archive's SHA-256: $(cat "$work/ci.log")"
rm "$work/release.tar.gz"
CKPT_ARCHIVE_URL="file://$work/release.tar.gz" CKPT_ARCHIVE_SHA256=$sha \
  "$source_dir/scripts/ci-tools" "$cache" >/dev/null 2>"$work/ci.log" ||
  fail "ci-tools did not restore from the cache: $(cat "$work/ci.log")"
grep -q 'restored from the cache' "$work/ci.log" || fail "ci-tools fetched again on a cache hit: $(cat "$work/ci.log")"
env -i "$ci_bin/ckpt-audit" "$source_dir/fixtures/vectors/v1-single" >"$work/out.txt" ||
  fail "the cached ckpt-audit fails a clean round with an empty environment: $(cat "$work/out.txt")"
cp -r "$source_dir/fixtures/vectors/v1-single" "$work/copy"
env -i "$ci_bin/ckpt-diff" -q "$source_dir/fixtures/vectors/v1-single" "$work/copy" >/dev/null ||
  fail "the cached ckpt-diff fails two equal rounds with an empty environment"
cp "$archive" "$work/release.tar.gz"
status=0
CKPT_ARCHIVE_URL="file://$work/release.tar.gz" CKPT_ARCHIVE_SHA256=$(printf '0%.0s' {1..64}) \
  "$source_dir/scripts/ci-tools" "$work/other-cache" >/dev/null 2>"$work/ci.log" || status=$?
[ "$status" -eq 2 ] && grep -q "has SHA-256 $sha, not the pinned 0000" "$work/ci.log" ||
  fail "a wrong pin was not refused (exit $status): $(cat "$work/ci.log")"
[ ! -e "$work/other-cache/tools" ] || fail "a wrong pin left tools in the cache"
echo "portable_test: $count binaries, glibc <= 2.35 and no other library, in $(basename "$archive")" \
     "($(($(stat -c %s "$archive") / 1048576)) MiB)"
