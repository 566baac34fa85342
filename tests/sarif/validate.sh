#!/usr/bin/env bash
# validate.sh [FLAGS] FILE.sarif...: see README.md. FLAGS are validate-sarif's (--strict,
# --require-multitool, ...); the schema-only check ignores them. Exit 0: all valid.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=$here/../../../shared/tools/validate-sarif
if [ -x "$shared" ]; then
  exec "$shared" "$@"
fi
files=()
for arg in "$@"; do
  case $arg in --*) ;; *) files+=("$arg") ;; esac
done
if [ "${CKPT_REQUIRE_ALL:-}" = 1 ]; then
  # CI proves SARIF with the official validator; a schema check alone would be a quiet downgrade.
  echo "validate.sh: the official validator ($shared) is missing, required with CKPT_REQUIRE_ALL=1" >&2
  exit 1
fi
echo "validate.sh: ../shared is not beside this checkout: the OASIS schema check only" >&2
exec /usr/bin/python3 - "$here/sarif-schema-2.1.0.json" "${files[@]}" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1], encoding="utf-8"))
validator = jsonschema.Draft4Validator(schema)
bad = 0
for path in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(path, encoding="utf-8"))), key=lambda e: list(e.path))
    for e in errors[:20]:
        print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
    bad += bool(errors)
    print(f"{path}: {'invalid' if errors else 'valid'}")
files = len(sys.argv) - 2
print(f"{files - bad} file(s) valid, {bad} file(s) invalid")
sys.exit(1 if bad or files == 0 else 0)
PY
