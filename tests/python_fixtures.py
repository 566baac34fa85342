"""Runs the test generators that real Python writers need (torch, joblib, onnx, msgpack, h5py)
in one interpreter, so torch and numpy are imported once for the whole test run instead of once
per suite: the CTest fixture `python_made` (tests/CMakeLists.txt), read by
tests/support/python_fixtures.cpp.

Usage: python_fixtures.py OUT [NAME...]   (default: every generator)

Each generator writes OUT/NAME/, and what it printed goes to OUT/NAME/.fixture-stdout;
OUT/NAME/.fixture-key then holds the key of what made it (the generator folder's scripts, the
interpreter, the packages' versions), and a later run with the same key leaves the folder as it is. A generator that fails writes OUT/NAME.failed with its
error (a missing package: the test reading it reports a missing prerequisite) and the others
still run: the exit status is 0 unless OUT cannot be written.
"""
import contextlib
import hashlib
import importlib.metadata
import os
import runpy
import shutil
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))

# NAME: (script under tests/, its arguments after the output folder; {out} is that folder).
GENERATORS = {
    "torch-checkpoints": ("torch/make_checkpoints.py", []),
    "torch-big-crc": ("torch/make_big_crc.py", []),
    "plain-pickles": ("torch/make_plain_pickles.py", []),
    "convert-cases": ("torch/make_convert_cases.py", []),
    "derivations": ("torch/make_derivations.py", []),
    "bin-twins": ("torch/make_bin_twins.py", []),
    "traced-module": ("torch/make_traced_module.py", []),
    "nemo": ("nemo/make_nemo.py", ["{out}/payload-ran"]),
    "joblib": ("joblib/make_joblib.py", ["{out}/payload-ran"]),
    "onnx": ("onnx/make_onnx.py", []),
    "hdf5": ("hdf5/make_hdf5.py", ["{out}/payload-ran"]),
    "msgpack": ("msgpack/make_msgpack.py", []),
    "real-shapes": ("real_shapes/make_real_shapes.py", []),
}
PACKAGES = ("torch", "numpy", "joblib", "onnx", "msgpack", "h5py", "protobuf", "PyYAML")


def key_of(script):
    """What the generator's output depends on: every script of its folder, the interpreter and
    the packages it may import."""
    digest = hashlib.sha256()
    folder = os.path.dirname(script)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read() + b"\0")
    digest.update(sys.version.encode())
    for package in PACKAGES:
        try:
            version = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        digest.update(("%s=%s\0" % (package, version)).encode())
    return digest.hexdigest()


def run_generator(script, argv, stdout):
    """Runs the script as its own __main__ with `argv`, printing to `stdout`; its error text, or None."""
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    sys.argv = [script, *argv]
    try:
        with contextlib.redirect_stdout(stdout):
            runpy.run_path(script, run_name="__main__")
        return None
    except SystemExit as stop:
        return None if stop.code in (None, 0) else "exited: %s" % stop.code
    except Exception:  # noqa: BLE001 (any generator error is reported to the test that needs it)
        return traceback.format_exc()
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)


def make(out, name):
    relative, arguments = GENERATORS[name]
    script = os.path.join(HERE, relative)
    folder = os.path.join(out, name)
    failed = folder + ".failed"
    key = key_of(script)
    complete = os.path.join(folder, ".fixture-key")
    if os.path.exists(complete) and not os.path.exists(failed):
        with open(complete, encoding="utf-8") as f:
            if f.read() == key:
                return True
    shutil.rmtree(folder, ignore_errors=True)
    if os.path.exists(failed):
        os.remove(failed)
    os.makedirs(folder)
    with open(os.path.join(folder, ".fixture-stdout"), "w", encoding="utf-8") as stdout:
        error = run_generator(script, [folder, *(a.format(out=folder) for a in arguments)], stdout)
    if error is not None:
        with open(failed, "w", encoding="utf-8") as f:
            f.write("%s failed: %s" % (relative, error))
        return False
    with open(complete, "w", encoding="utf-8") as f:
        f.write(key)
    return True


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out, names = os.path.abspath(argv[0]), argv[1:] or list(GENERATORS)
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        print("python_fixtures: no generator named %s" % ", ".join(unknown), file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    made = [name for name in names if make(out, name)]
    failed = sorted(set(names) - set(made))
    print("python_fixtures: %d made or current in %s%s" % (len(made), out,
                                                           "; failed: " + ", ".join(failed) if failed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
