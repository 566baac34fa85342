"""The official SARIF validators, from pinned npm packages (tests/sarif/validate.sh).

Usage: validators.py [--strict] [--require-multitool] FILE.sarif...

Each file passes (1) ajv against the OASIS SARIF 2.1.0 schema kept beside this script (draft-04,
migrated to draft-07 by `ajv migrate`, which ajv-cli can load), (2) the SARIF Multitool's
`validate` with rule kinds "Sarif;Gh" (its errors always fail; its warnings fail with --strict)
and (3) GitHub code scanning's documented upload limits and required properties. The packages
are installed on first use into $CKPT_NPM_CACHE (default ~/.cache/ckpt-audit/npm), one folder
per pinned version set, under a lock so parallel tests install once. Exit 0: every file valid;
1: a file invalid; 2: a validator could not be installed or run (never a quieter check).
"""
import fcntl
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

AJV = ["ajv-cli@5.0.0", "ajv@8.17.1", "ajv-formats@3.0.1"]
MULTITOOL = "@microsoft/sarif-multitool-linux@5.7.0"
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "sarif-schema-2.1.0.json")


class SetupError(Exception):
    pass


def npm_folder(cache, name, packages):
    """A folder with `packages` installed (installed now if it is not yet)."""
    folder = os.path.join(cache, name)
    done = os.path.join(folder, ".installed")
    if os.path.exists(done):
        return folder
    if shutil.which("npm") is None:
        raise SetupError("npm is missing (scripts/install-deps --test installs nodejs and npm)")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "package.json"), "w") as f:
        f.write('{"name": "ckpt-audit-sarif-validators", "private": true}\n')
    run = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *packages], cwd=folder,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SetupError("npm install %s failed: %s" % (" ".join(packages), run.stderr[-2000:]))
    open(done, "w").close()
    return folder


def setup(cache):
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests install once
        ajv_dir = npm_folder(cache, "sarif-ajv-" + "-".join(p.rsplit("@", 1)[1] for p in AJV), AJV)
        ajv = os.path.join(ajv_dir, "node_modules", ".bin", "ajv")
        draft7 = os.path.join(ajv_dir, "sarif-2.1.0.draft7.json")
        if not os.path.exists(draft7):
            migrated = subprocess.run([ajv, "migrate", "--spec=draft7", "-s", SCHEMA, "-o", draft7 + ".tmp"],
                                      capture_output=True, text=True)
            if migrated.returncode != 0:
                raise SetupError("ajv migrate failed: " + migrated.stdout + migrated.stderr)
            os.replace(draft7 + ".tmp", draft7)
        mt_dir = npm_folder(cache, "sarif-multitool-" + MULTITOOL.rsplit("@", 1)[1], [MULTITOOL])
        multitool = os.path.join(mt_dir, "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
        if os.path.exists(multitool):
            os.chmod(multitool, 0o755)
    if subprocess.run([multitool, "--version"], capture_output=True).returncode != 0:
        raise SetupError("the SARIF Multitool does not run here (%s)" % multitool)
    return ajv, draft7, multitool


def ajv_command(ajv, schema, data_files):
    command = [ajv, "validate", "--spec=draft7", "--strict=false", "--all-errors", "--errors=json", "-c", "ajv-formats",
               "-s", schema]
    for data in data_files:
        command += ["-d", data]
    return command


def check_ajv(ajv, schema, paths, work):
    """ajv's problems per path. One ajv run checks every file (its start and the schema's
    compilation cost about a second); when it rejects any, each file is checked alone so the
    errors are told per file."""
    data_files = []
    for index, path in enumerate(paths):
        data = os.path.join(work, "data-%d.json" % index)  # ajv-cli reads only *.json data files
        shutil.copy(path, data)
        data_files.append(data)
    if subprocess.run(ajv_command(ajv, schema, data_files), capture_output=True).returncode == 0:
        return {path: [] for path in paths}
    problems = {}
    for path, data in zip(paths, data_files):
        run = subprocess.run(ajv_command(ajv, schema, [data]), capture_output=True, text=True)
        problems[path] = [] if run.returncode == 0 else ["ajv: " + (run.stdout + run.stderr).replace(data, path)[-3000:]]
    return problems


def check_multitool(multitool, path, work, strict):
    out = os.path.join(work, "multitool.sarif")
    run = subprocess.run([multitool, "validate", path, "--rule-kind", "Sarif;Gh", "--level", "Error;Warning",
                          "-o", out, "--log", "ForceOverwrite"], capture_output=True, text=True)
    if run.returncode != 0 or not os.path.exists(out):
        return ["multitool: could not validate (exit %d): %s" % (run.returncode, (run.stdout + run.stderr)[-2000:])]
    problems = []
    with open(out, encoding="utf-8-sig") as f:
        log = json.load(f)
    for result_run in log.get("runs", []):
        for r in result_run.get("results", []):
            level = r.get("level", "warning")
            if level == "error" or (strict and level == "warning"):
                text = r.get("message", {}).get("text") or " | ".join(r.get("message", {}).get("arguments", []))
                problems.append("multitool %s %s: %s" % (level, r.get("ruleId", "?"), text))
        for invocation in result_run.get("invocations", []):
            notes = invocation.get("toolExecutionNotifications", []) + invocation.get(
                "toolConfigurationNotifications", [])
            for note in notes:
                if note.get("level", "warning") == "error":
                    problems.append("multitool tool error: " + note.get("message", {}).get("text", ""))
            if invocation.get("executionSuccessful") is False:
                problems.append("multitool: its run was not successful")
    return problems


def check_github(path):
    """GitHub code scanning's documented upload limits and the properties it requires."""
    with open(path, "rb") as f:
        raw = f.read()
    problems = []
    if len(gzip.compress(raw)) > 10 * 1024 * 1024:
        problems.append("github: over 10 MB gzip-compressed")
    log = json.loads(raw)
    runs = log.get("runs")
    if not isinstance(runs, list):
        return problems + ["github: no runs[]"]
    if len(runs) > 20:
        problems.append("github: %d runs (at most 20)" % len(runs))
    for i, run in enumerate(runs):
        driver = run.get("tool", {}).get("driver", {})
        if not driver.get("name"):
            problems.append("github: runs[%d].tool.driver.name missing" % i)
        rules = driver.get("rules", [])
        if len(rules) > 25000:
            problems.append("github: runs[%d] has %d rules (at most 25,000)" % (i, len(rules)))
        results = run.get("results")
        if not isinstance(results, list):
            problems.append("github: runs[%d].results[] missing" % i)
            continue
        if len(results) > 25000:
            problems.append("github: runs[%d] has %d results (at most 25,000)" % (i, len(results)))
        for k, result in enumerate(results):
            where = "runs[%d].results[%d]" % (i, k)
            if not (result.get("message", {}).get("text") or result.get("message", {}).get("id")):
                problems.append("github: %s has no message text" % where)
            if "ruleId" not in result and "rule" not in result:
                problems.append("github: %s names no rule" % where)
            if len(result.get("locations", [])) > 1000:
                problems.append("github: %s has over 1,000 locations" % where)
    return problems


def main(argv):
    strict = "--strict" in argv
    files = [a for a in argv if not a.startswith("--")]
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    cache = os.environ.get("CKPT_NPM_CACHE") or os.path.expanduser("~/.cache/ckpt-audit/npm")
    try:
        ajv, schema, multitool = setup(cache)
    except SetupError as error:
        print("validate.sh: %s" % error, file=sys.stderr)
        return 2
    invalid = 0
    with tempfile.TemporaryDirectory(prefix="ckpt-sarif-") as work:
        try:
            schema_problems = check_ajv(ajv, schema, files, work)
        except OSError as error:
            schema_problems = {path: ["not readable: %s" % error] for path in files}
        for path in files:
            try:
                problems = schema_problems[path] + check_multitool(multitool, path, work, strict) + check_github(path)
            except (OSError, ValueError) as error:
                problems = ["not readable as SARIF: %s" % error]
            print("%s: %s" % (path, "valid" if not problems else "INVALID"))
            for problem in problems:
                print("  " + problem)
            invalid += bool(problems)
    print("validate.sh: %d file(s) valid, %d file(s) invalid" % (len(files) - invalid, invalid))
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
