#!/usr/bin/env python3
"""The GitLab CI/CD component (templates/ckpt-audit.yml) and the example that includes it
(ci-examples/gitlab-ci.yml): the component's spec declares every input its job uses, the
example gives only declared inputs and every one without a default, the job keeps the
reports GitLab shows, and its script, with the inputs substituted as GitLab does, runs here:
the tools restored from the cache of the component's commit (nothing installed or fetched),
or on a miss a pinned archive fetched, checked and unpacked by this commit's scripts/ci-tools;
the findings in the log and the Code Quality and JUnit files written.
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
used = set(re.findall(r"\$\[\[\s*inputs\.([a-z0-9-]+)\s*\]\]", text.split("\n---\n", 1)[1]))
if docs[0]["spec"].get("component") != ["sha"]:
    fail("the component does not ask GitLab for its commit (spec: component: [sha])")
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

def substitute(values, sha):
    body = text.split("\n---\n", 1)[1]
    body = re.sub(r"\$\[\[\s*component\.sha\s*\]\]", sha, body)
    return yaml.safe_load(re.sub(r"\$\[\[\s*inputs\.([a-z0-9-]+)\s*\]\]", lambda m: str(values[m.group(1)]), body))

head = subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()

def fill_cache(work):
    """The cache a previous job of this commit left: the tools and the commit they are of."""
    shutil.copytree(bin_dir, os.path.join(work, ".ckpt-audit/tools/usr/bin"),
                    ignore=lambda d, names: [n for n in names if not n.startswith("ckpt-")])
    with open(os.path.join(work, ".ckpt-audit/id"), "w") as f:
        f.write(head + "\n")

def run_job(work, paths, restored=True, **given):
    """The job's script as GitLab runs it in the project at `work`, the component included at
    this checkout's commit: its exit status and log."""
    values = {name: (spec or {}).get("default", "") for name, spec in inputs.items()}
    values.update({"paths": paths, "repository": source})
    values.update(given)
    job = substitute(values, head)[values["job-name"]]
    if job["artifacts"]["reports"] != {"codequality": "gl-code-quality-report.json", "junit": "ckpt-audit.junit.xml"}:
        fail("the job does not keep the Code Quality and JUnit reports")
    if head not in job["cache"]["key"] or values["archive-sha256"] not in job["cache"]["key"]:
        fail("the cache is not keyed on the component's commit and the pinned archive")
    env = dict(os.environ, CI_PROJECT_DIR=work)
    env.update({k: v.replace("$CI_PROJECT_DIR", work) for k, v in job["variables"].items()})
    env["CKPT_RUN"] = os.path.join(tempfile.mkdtemp(), "tools")  # the runner's /tmp, one per job
    script = "set -eo pipefail\n" + "\n".join(job["script"])
    run = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True)
    log = run.stdout + run.stderr
    if restored != ("ckpt-audit restored from the cache" in log):
        fail(("the job did not restore the cache:\n" if restored else "the job restored a stale cache:\n") + log)
    if run.returncode == 2:
        return run.returncode, log
    if not os.path.isfile(os.path.join(work, ".ckpt-audit/tools/usr/bin/ckpt-audit")):
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
    fill_cache(work)
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
    fill_cache(work)
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
# A cache miss with a pinned release: the job fetches the component's commit, whose
# scripts/ci-tools downloads the archive, checks its SHA-256 and unpacks it into the cache;
# the next job restores it; a cache of another commit is never used; a wrong pin fails the job
# (exit 2) with nothing unpacked.
work = tempfile.mkdtemp()
try:
    release = os.path.join(work, "release")
    os.makedirs(os.path.join(release, "ckpt-audit-0-Linux/usr/bin"))
    for name in os.listdir(bin_dir):
        if name.startswith("ckpt-"):
            shutil.copy(os.path.join(bin_dir, name), os.path.join(release, "ckpt-audit-0-Linux/usr/bin", name))
    archive = os.path.join(work, "ckpt-audit-0-Linux.tar.gz")
    subprocess.run(["tar", "-czf", archive, "-C", release, "ckpt-audit-0-Linux"], check=True)
    shutil.rmtree(release)
    sha = subprocess.run(["sha256sum", archive], capture_output=True, text=True, check=True).stdout.split()[0]
    project = os.path.join(work, "project")
    shutil.copytree(os.path.join(source, "fixtures/vectors/v1-single"), os.path.join(project, "round"))
    pinned = {"archive-url": "file://" + archive, "archive-sha256": sha}
    status, log = run_job(project, "round", restored=False, **pinned)
    if status != 0 or "archive SHA-256 " + sha not in log:
        fail("the job did not install the pinned archive on a cache miss (%d):\n%s" % (status, log))
    status, log = run_job(project, "round", restored=True, **pinned)
    if status != 0:
        fail("the job failed with the restored archive (%d):\n%s" % (status, log))
    with open(os.path.join(project, ".ckpt-audit/id"), "w") as f:
        f.write("0" * 40 + "\n")  # a cache another commit filled
    status, log = run_job(project, "round", restored=False, **pinned)
    if status != 0:
        fail("the job did not replace another commit's tools (%d):\n%s" % (status, log))
    shutil.rmtree(os.path.join(project, ".ckpt-audit"))
    status, log = run_job(project, "round", restored=False, **{"archive-url": "file://" + archive,
                                                               "archive-sha256": "0" * 64})
    if status != 2 or "not the pinned " + "0" * 64 not in log:
        fail("a wrong pin did not fail the job (%d):\n%s" % (status, log))
    if os.path.exists(os.path.join(project, ".ckpt-audit/tools")):
        fail("a wrong pin left tools in the cache")
finally:
    shutil.rmtree(work)
print("gitlab_component_test: the component's job runs, restores its tools, installs a pinned archive on a miss,"
      " reports the findings and gates a repository-root model")
