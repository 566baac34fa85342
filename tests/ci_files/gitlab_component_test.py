#!/usr/bin/env python3
"""The GitLab CI/CD component (templates/ckpt-audit.yml) and the example that includes it
(ci-examples/gitlab-ci.yml): the component's spec declares every input its job uses, the
example gives only declared inputs and every one without a default, the job keeps the
reports GitLab shows, and its script, with the inputs substituted as GitLab does, runs here:
ckpt-audit cloned from this checkout, restored from the cache (no compile), the findings in
the log and the Code Quality and JUnit files written.
    gitlab_component_test.py SOURCE_DIR BIN_DIR"""
import os, re, shutil, subprocess, sys, tempfile
import yaml

source, bin_dir = sys.argv[1], sys.argv[2]
def fail(message):
    print("gitlab_component_test: " + message, file=sys.stderr)
    sys.exit(1)

text = open(os.path.join(source, "templates/ckpt-audit.yml")).read()
docs = list(yaml.safe_load_all(text))
if len(docs) != 2 or "spec" not in docs[0]:
    fail("the component is not a spec document and a job document")
inputs = docs[0]["spec"]["inputs"]
used = set(re.findall(r"\$\[\[\s*inputs\.([a-z-]+)\s*\]\]", text.split("\n---\n", 1)[1]))
if used - set(inputs):
    fail("the job uses undeclared inputs: %s" % sorted(used - set(inputs)))
if set(inputs) - used:
    fail("declared inputs the job never uses: %s" % sorted(set(inputs) - used))
example = yaml.safe_load(open(os.path.join(source, "ci-examples/gitlab-ci.yml")))
given = example["include"][0]["inputs"]
if set(given) - set(inputs):
    fail("the example gives inputs the component does not declare: %s" % sorted(set(given) - set(inputs)))
required = {name for name, spec in inputs.items() if "default" not in (spec or {})}
if required - set(given):
    fail("the example lacks required inputs: %s" % sorted(required - set(given)))
if not example["include"][0]["component"].endswith("/ckpt-audit@main"):
    fail("the example does not include the component by name")

def substitute(values):
    body = text.split("\n---\n", 1)[1]
    return yaml.safe_load(re.sub(r"\$\[\[\s*inputs\.([a-z-]+)\s*\]\]", lambda m: str(values[m.group(1)]), body))

head = subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()

def run_job(work, paths):
    """The job's script as GitLab runs it in the project at `work`, with the cache a previous
    run of this version left (the built tools): its exit status and log."""
    values = {name: (spec or {}).get("default", "") for name, spec in inputs.items()}
    values.update({"paths": paths, "version": head, "repository": source})
    job = substitute(values)[values["job-name"]]
    if job["artifacts"]["reports"] != {"codequality": "gl-code-quality-report.json", "junit": "ckpt-audit.junit.xml"}:
        fail("the job does not keep the Code Quality and JUnit reports")
    if values["version"] not in job["cache"]["key"]:
        fail("the cache is not keyed on the version")
    if not os.path.isdir(os.path.join(work, ".ckpt-audit/build/bin")):
        shutil.copytree(bin_dir, os.path.join(work, ".ckpt-audit/build/bin"),
                        ignore=lambda d, names: [n for n in names if not n.startswith("ckpt-")])
    env = dict(os.environ, CI_PROJECT_DIR=work)
    env.update({k: v.replace("$CI_PROJECT_DIR", work) for k, v in job["variables"].items()})
    env["CKPT_RUN"] = os.path.join(tempfile.mkdtemp(), "tools")  # the runner's /tmp, one per job
    script = "set -eo pipefail\n" + "\n".join(line for line in job["script"] if "apt-get" not in line)
    run = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True)
    log = run.stdout + run.stderr
    if "ckpt-audit restored from the cache" not in log:
        fail("the job compiled instead of restoring the cache:\n" + log)
    if not os.path.isfile(os.path.join(work, ".ckpt-audit/build/bin/ckpt-audit")):
        fail("the tools did not go back where GitLab caches them:\n" + log)
    for report in ("gl-code-quality-report.json", "ckpt-audit.junit.xml", "ckpt-audit.sarif"):
        if not os.path.getsize(os.path.join(work, report)):
            fail(report + " is empty")
    return run.returncode, log

work = tempfile.mkdtemp()
try:
    # A project holding checkpoints: one clean round and one pickle that runs posix.system.
    os.makedirs(os.path.join(work, "models"))
    shutil.copytree(os.path.join(source, "fixtures/vectors/v1-single"), os.path.join(work, "models/round"))
    with open(os.path.join(work, "models/evil.pkl"), "wb") as f:
        f.write(b"\x80\x02cposix\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.")
    status, log = run_job(work, "models/*")
    if status != 1:
        fail("the job exited %d, not 1 (findings):\n%s" % (status, log))
    if "models/evil.pkl@2: error: GLOBAL at byte 2 imports posix.system" not in log:
        fail("the log lacks the finding:\n" + log)
    if "pickle-global-unsafe" not in open(os.path.join(work, "gl-code-quality-report.json")).read():
        fail("the Code Quality report lacks the finding")
finally:
    shutil.rmtree(work)

# A Hugging Face model repository whose model is its root (issue 51): `paths: "."` audits the
# folder whole, with the reports at the root and the tools' cache beside them, and passes again
# when the first run's reports are there; a pickle added at the root then fails it.
work = tempfile.mkdtemp()
try:
    header = b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    with open(os.path.join(work, "model.safetensors"), "wb") as f:
        f.write(len(header).to_bytes(8, "little") + header + bytes(8))
    with open(os.path.join(work, "config.json"), "w") as f:
        f.write('{"model_type": "llama"}')
    with open(os.path.join(work, "README.md"), "w") as f:
        f.write("# a model\n")
    for attempt in ("first", "second"):
        status, log = run_job(work, ".")
        if status != 0 or ".: PASS" not in log:
            fail("the %s run at the repository root exited %d:\n%s" % (attempt, status, log))
    with open(os.path.join(work, "extra.pkl"), "wb") as f:
        f.write(b"\x80\x02cposix\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.")
    status, log = run_job(work, ".")
    if status != 1 or "extra.pkl" not in log:
        fail("a pickle at the repository root did not fail the job (%d):\n%s" % (status, log))
finally:
    shutil.rmtree(work)
print("gitlab_component_test: the component's job runs, restores its build, reports the findings and gates a repository-root model")
