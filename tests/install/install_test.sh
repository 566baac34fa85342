#!/usr/bin/env bash
# Installs the build into a temporary prefix and checks what a user gets: the three tools
# (their --version is project()'s), man pages that man renders without a warning and that
# name every option --help names, bash and zsh completion that load, the licence; then builds
# the Debian package and checks its contents and its dependencies.
#   install_test.sh BUILD_DIR VERSION
set -euo pipefail
build=$1
version=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
tools=(ckpt-audit ckpt-chain ckpt-diff ckpt-convert)
# The JSON Schemas of the files the tools read and write are installed with them.
for schema in policy baseline config ckpt-audit-report; do
  file="$tmp/prefix/share/ckpt-audit/schemas/$schema.schema.json"
  [ -f "$file" ] || fail "cmake --install did not install share/ckpt-audit/schemas/$schema.schema.json"
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$file" || fail "$schema.schema.json is not JSON"
done
for tool in "${tools[@]}"; do
  for file in "bin/$tool" "share/man/man1/$tool.1" "share/bash-completion/completions/$tool" \
              "share/zsh/vendor-completions/_$tool"; do
    [ -f "$tmp/prefix/$file" ] || fail "cmake --install did not install $file"
  done
  [ "$("$tmp/prefix/bin/$tool" --version)" = "$tool $version" ] || fail "$tool --version is not '$tool $version'"

  # man renders the page without a warning, and it names every option --help names.
  rendered=$(MANWIDTH=100 man -l "$tmp/prefix/share/man/man1/$tool.1" 2>"$tmp/man.err")
  [ ! -s "$tmp/man.err" ] || fail "man -l $tool.1 warned: $(cat "$tmp/man.err")"
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
    grep -q "^$section" <<<"$rendered" || fail "$tool.1 has no $section section"
  done
  # hyphenation at the page width may break a long option name: compare unbroken text.
  unbroken=$(MANWIDTH=1000 man -l "$tmp/prefix/share/man/man1/$tool.1" 2>/dev/null)
  for option in $("$tmp/prefix/bin/$tool" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$option" <<<"$unbroken" || fail "$tool.1 does not describe $option, which --help lists"
  done

  # bash: the completion loads, completes an option and a value.
  words=$(bash -c "source '$tmp/prefix/share/bash-completion/completions/$tool'
    COMP_WORDS=($tool --fail-o); COMP_CWORD=1; _${tool//-/_}; echo \"\${COMPREPLY[*]}\"
    COMP_WORDS=($tool --fail-on w); COMP_CWORD=2; _${tool//-/_}; echo \"\${COMPREPLY[*]}\"")
  [ "$words" = $'--fail-on\nwarning' ] || fail "bash completion of $tool gave: $words"
  # --report FORMAT=FILE: the formats first (no space after the '='), then files; and ckpt-audit's
  # --expect-kind, its kinds.
  words=$(cd "$tmp" && bash -c "source '$tmp/prefix/share/bash-completion/completions/$tool'
    COMP_LINE='$tool --report sar'; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=($tool --report sar); COMP_CWORD=2
    _${tool//-/_}; echo \"\${COMPREPLY[*]}\"
    COMP_LINE='$tool --report sarif=pref'; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=($tool --report sarif = pref); COMP_CWORD=4
    _${tool//-/_}; echo \"\${COMPREPLY[*]}\"")
  [ "$words" = $'sarif=\nprefix' ] || fail "bash completion of $tool --report gave: $words"
  if [ "$tool" = ckpt-audit ]; then
    words=$(bash -c "source '$tmp/prefix/share/bash-completion/completions/$tool'
      COMP_LINE='$tool --expect-kind safe'; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=($tool --expect-kind safe)
      COMP_CWORD=2; _${tool//-/_}; echo \"\${COMPREPLY[*]}\"")
    [ "$words" = safetensors ] || fail "bash completion of --expect-kind gave: $words"
  fi
  if command -v zsh >/dev/null; then
    zsh -n "$tmp/prefix/share/zsh/vendor-completions/_$tool" || fail "_$tool is not valid zsh"
  fi
done
# The Python module (where it is built): importable by Debian's python3 from the prefix's
# versioned dist-packages, auditing with the installed HDF5 helper.
if [ -f "$build/python/ckpt_audit/__init__.py" ]; then
  site=$(/usr/bin/python3 -c 'import sys; print(f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/dist-packages")')
  [ -f "$tmp/prefix/$site/ckpt_audit/__init__.py" ] || fail "cmake --install did not install $site/ckpt_audit"
  "$build/bin/ckpt-make-artifact" "$tmp/round" 2 16 >/dev/null
  PYTHONPATH="$tmp/prefix/$site" /usr/bin/python3 - "$tmp/round" "$tmp/prefix" <<'PY' || fail "the installed module does not verify"
import sys, ckpt_audit
assert ckpt_audit.__file__.startswith(sys.argv[2]), ckpt_audit.__file__
tensors, header = ckpt_audit.load_checkpoint(sys.argv[1])
assert len(tensors) == 2 and header["schema_version"] == 2, (tensors, header)
import h5py, numpy, os
h5 = os.path.join(os.path.dirname(sys.argv[1]), "model.h5")
with h5py.File(h5, "w") as f:
    f.create_dataset("dense/kernel", data=numpy.ones((2, 2), dtype=numpy.float32))
report = ckpt_audit.verify(h5)  # read by the installed ckpt-h5probe
assert [t["name"] for t in report["tensors"]] == ["dense/kernel"], report["tensors"]
PY
fi
[ -f "$tmp/prefix/share/doc/ckpt-audit/copyright" ] || fail "the licence is not installed"
grep -q "Apache License" "$tmp/prefix/share/doc/ckpt-audit/copyright" || fail "the licence is not Apache-2.0"

# The Debian package: contents, dependencies on the runtime libraries, the version.
cpack -G DEB -B "$tmp/package" --config "$build/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1 || {
  cat "$tmp/cpack.log" >&2
  fail "cpack -G DEB failed"
}
deb=$(ls "$tmp"/package/*.deb)
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for tool in "${tools[@]}"; do
  for file in "./usr/bin/$tool" "./usr/share/man/man1/$tool.1" "./usr/share/bash-completion/completions/$tool" \
              "./usr/share/zsh/vendor-completions/_$tool"; do
    grep -qx -- "$file" <<<"$contents" || fail "the package does not hold $file"
  done
done
grep -qx -- "./usr/share/doc/ckpt-audit/copyright" <<<"$contents" || fail "the package holds no copyright file"
if [ -f "$build/python/ckpt_audit/__init__.py" ]; then
  # Debian's python3 finds /usr/lib/python3/dist-packages.
  grep -qx -- "./usr/lib/python3/dist-packages/ckpt_audit/__init__.py" <<<"$contents" ||
    fail "the package does not hold the Python module in /usr/lib/python3/dist-packages"
  grep -q -- "^./usr/lib/python3/dist-packages/ckpt_audit/_native\..*\.so$" <<<"$contents" ||
    fail "the package does not hold the module's binding"
fi
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "the package version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
for library in libcrypto++8 libicu libboost-json libboost-program-options libstdc++6; do
  grep -q "$library" <<<"$depends" || fail "the package does not depend on $library: $depends"
done
if grep -q -- "-dev" <<<"$depends"; then fail "the package depends on a -dev package: $depends"; fi
echo "install_test: ok ($(basename "$deb"): $depends)"
