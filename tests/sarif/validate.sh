#!/usr/bin/env bash
# validate.sh [--strict] [--require-multitool] FILE.sarif...: the official SARIF validators on
# each file. Exit 0: all valid.
#
# The consumers run from pinned npm packages, installed on first use into
# ${CKPT_NPM_CACHE:-~/.cache/ckpt-audit/npm} (validators.py):
#   1. ajv (ajv-cli) against the OASIS SARIF 2.1.0 schema kept here (sarif-schema-2.1.0.json),
#      one run for all the files;
#   2. Microsoft's SARIF Multitool `validate` with the SARIF and GitHub ingestion rules;
#   3. GitHub code scanning's upload limits and the properties it requires.
# The same three checks as the team's validate-sarif, from this checkout alone (a test never
# needs ../shared). A validator that cannot be installed or run is an error, never a quieter check.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec /usr/bin/python3 "$here/validators.py" "$@"
