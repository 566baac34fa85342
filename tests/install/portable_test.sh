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
cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCKPT_PORTABLE=ON -DCKPT_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
rm -f "$build"/ckpt-audit-*.tar.gz
(cd "$build" && cpack -G TGZ >/dev/null)
archive=$(ls "$build"/ckpt-audit-*.tar.gz)
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
  "$bin/$name" --help | head -n 1 | grep -q "^Usage: $name " || fail "$name does not run as itself: $("$bin/$name" --help 2>&1 | head -n 1)"
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
echo "portable_test: $count binaries, glibc <= 2.35 and no other library, in $(basename "$archive")" \
     "($(($(stat -c %s "$archive") / 1048576)) MiB)"
