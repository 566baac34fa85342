"""One ckpt-audit run over many files (differential.py and formats.py): a process per file cost
most of those suites' time."""
import json
import subprocess


def audit_many(tool, paths, audit_one):
    """One artifact per path, in their order; a run that crashes or answers otherwise is redone a
    file at a time with `audit_one`, so a crash is still pinned to its file."""
    run = subprocess.run([tool, "--format", "json", "--jobs", "1", *paths], capture_output=True, timeout=600)
    if run.returncode in (0, 1):
        try:
            artifacts = json.loads(run.stdout).get("artifacts", [])
        except ValueError:
            artifacts = []
        if len(artifacts) == len(paths):
            return artifacts
    return [audit_one(path) for path in paths]
