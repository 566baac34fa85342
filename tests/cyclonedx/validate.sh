#!/usr/bin/env bash
# Validates CycloneDX 1.6 BOMs with two independent validators: the CycloneDX JavaScript
# library's strict validator (@cyclonedx/cyclonedx-library JsonStrictValidator, with ajv), and
# Debian's python3-jsonschema against the official 1.6 schema as that package ships it
# (res/schema/bom-1.6.SNAPSHOT.schema.json, with the SPDX and JSF schemas it refers to). The npm
# packages are installed into CACHE_DIR at pinned versions on first use.
# Each validator's verdict goes to stdout ("strict: valid|invalid", "jsonschema: valid|invalid"),
# both run whatever the other says.
#   validate.sh CACHE_DIR BOM.json...     (exit 0: every BOM valid for both; 1: one is not)
set -euo pipefail
cache=$1/cyclonedx-validator
shift
fail() { echo "cyclonedx-validate: $*" >&2; exit 1; }
command -v npm >/dev/null || fail "npm is not installed (scripts/install-deps --test installs it)"
library=$cache/node_modules/@cyclonedx/cyclonedx-library
if [ ! -f "$library/package.json" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --silent --no-audit --no-fund \
    @cyclonedx/cyclonedx-library@10.3.0 ajv@8.17.1 ajv-formats@3.0.1 ajv-formats-draft2019@1.6.1 >&2 ||
    fail "npm could not install @cyclonedx/cyclonedx-library"
fi
status=0
if NODE_PATH=$cache/node_modules node - "$@" <<'JS'; then echo "strict: valid"; else echo "strict: invalid"; status=1; fi
const fs = require("fs");
const { Validation, Spec } = require("@cyclonedx/cyclonedx-library");
const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
(async () => {
  let failed = false;
  for (const file of process.argv.slice(2)) {
    const errors = await validator.validate(fs.readFileSync(file, "utf8"));
    if (errors !== null) {
      console.error(`cyclonedx-validate: ${file}: JsonStrictValidator: ${JSON.stringify(errors).slice(0, 2000)}`);
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.error(`cyclonedx-validate: ${e}`); process.exit(1); });
JS
if /usr/bin/python3 - "$library/res/schema" "$@" <<'PY'; then echo "jsonschema: valid"; else echo "jsonschema: invalid"; status=1; fi
import json, os, sys
import jsonschema
schemas = sys.argv[1]
def load(name):
    return json.load(open(os.path.join(schemas, name)))
bom_schema = load("bom-1.6.SNAPSHOT.schema.json")
store = {}
for name in ("spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json", "cryptography-defs.SNAPSHOT.schema.json"):
    if os.path.exists(os.path.join(schemas, name)):
        schema = load(name)
        store[name] = schema
        if "$id" in schema:
            store[schema["$id"]] = schema
resolver = jsonschema.RefResolver.from_schema(bom_schema, store=store)
validator = jsonschema.Draft7Validator(bom_schema, resolver=resolver, format_checker=jsonschema.FormatChecker())
failed = False
for path in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    for error in errors[:5]:
        print(f"cyclonedx-validate: {path}: jsonschema: {list(error.path)}: {error.message[:300]}", file=sys.stderr)
    failed |= bool(errors)
sys.exit(1 if failed else 0)
PY
exit "$status"
