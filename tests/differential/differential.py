#!/usr/bin/python3
"""The differential property of inputs.md section 1a, checked against the real readers.

Seeds (real torch.save zips and legacy files, pickles of every protocol, .npy files, tars
that tarfile, GNU tar and bsdtar write, safetensors files) and structure-aware mutations of
them (end records, comments, central directory names, tar header fields and pax records,
pickle frames, truncations, appended containers) are audited by ckpt-audit. Whenever the
audit passes a file, every reader present that accepts it must yield what the audit
reported:

- torch.load (weights_only=False, in this process, with pickle.Unpickler replaced by one
  whose find_class records every import and refuses those the audit never passes, so no
  code runs): the same tensor names, dtypes and shapes, and no refused import;
- pickle.load with that recording find_class: no refused import;
- numpy.load (allow_pickle=False): the array's dtype and shape;
- zipfile and unzip: one reading of the member names, no name equal to another but for case;
- tarfile, GNU tar and bsdtar: the audit's member names, and the extracted folder audits to
  the same content hash;
- the safetensors layout read here from its header: the same tensors.

Any disagreement is a counterexample: written to --out with what each reader saw, and the
run fails. Seeded and bounded: the same --seed judges the same files.
"""
import argparse
import collections
import hashlib
import io
import json
import os
import pickle
import random
import shutil
import struct
import subprocess

import batch_audit
import sys
import tarfile
import tempfile
import zipfile

# What the audit ever passes in a pickle: torch.save's globals (inputs.md section 6).
SAFE_GLOBALS = {
    ("collections", "OrderedDict"),
    ("torch._utils", "_rebuild_tensor"),
    ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_tensor_v3"),
    ("torch._utils", "_rebuild_parameter"),
    ("torch._utils", "_rebuild_parameter_with_state"),
    ("torch._utils", "_rebuild_meta_tensor_no_storage"),
    ("torch._tensor", "_rebuild_from_type_v2"),
    ("torch", "Size"),
    ("torch", "device"),
    ("torch", "Tensor"),
    ("torch.nn.parameter", "Parameter"),
    ("_codecs", "encode"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "bytearray"),
    ("builtins", "complex"),
    ("__builtin__", "set"),
}


def is_safe(module, name):
    if (module, name) in SAFE_GLOBALS:
        return True
    return module == "torch" and (name.endswith("Storage") or name in ("float32", "float16", "bfloat16", "int64"))


class Refused(Exception):
    pass


class Recorder:
    """A find_class that records each import and refuses what the audit never passes."""

    def __init__(self):
        self.imports = []
        self.refused = []

    def unpickler(self, base):
        recorder = self

        class Recording(base):
            def find_class(self, module, name):
                recorder.imports.append((module, name))
                if not is_safe(module, name):
                    recorder.refused.append((module, name))
                    raise Refused("%s.%s" % (module, name))
                return super().find_class(module, name)

        return Recording


def is_zip(source):
    """zipfile's own test, which can raise on hostile bytes (a reader that refuses)."""
    try:
        return zipfile.is_zipfile(source)
    except Exception:
        return False


def audit(tool, path):
    run = subprocess.run([tool, "--format", "json", path], capture_output=True, timeout=120)
    if run.returncode not in (0, 1, 2):
        return {"crash": run.returncode, "stderr": run.stderr.decode(errors="replace")}
    try:
        report = json.loads(run.stdout)
    except ValueError:
        return {"crash": "no JSON", "stderr": run.stderr.decode(errors="replace")}
    return report["artifacts"][0] if report.get("artifacts") else {"verdict": "error"}


def audit_many(tool, paths):
    return batch_audit.audit_many(tool, paths, lambda path: audit(tool, path))


TORCH_DTYPES = {}
BATCH = 64  # mutants audited by one ckpt-audit run


def tensor_listing(obj, torch):
    """Tensors by path as the audit names them: dict keys and list indices joined with '.'."""
    out = {}
    seen = set()

    def walk(value, path):
        if isinstance(value, torch.Tensor):
            out[path] = (TORCH_DTYPES.get(value.dtype, str(value.dtype)), list(value.shape))
            return
        if id(value) in seen:
            return
        if isinstance(value, dict):
            seen.add(id(value))
            for k, v in value.items():
                walk(v, str(k) if path == "" and value is obj else path + "." + str(k))
            seen.discard(id(value))
        elif isinstance(value, (list, tuple)):
            seen.add(id(value))
            for i, v in enumerate(value):
                walk(v, str(i) if path == "" and value is obj else path + "." + str(i))
            seen.discard(id(value))

    walk(obj, "")
    return out


def audited_tensors(artifact):
    return {t["name"]: (t["dtype"], t["shape"]) for t in artifact.get("tensors", [])}


class Judge:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.judged = 0
        self.passed = 0
        self.checks = collections.Counter()
        self.counterexamples = []
        import numpy
        import torch

        self.numpy = numpy
        self.torch = torch
        TORCH_DTYPES.update({
            torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
            torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
            torch.bool: "BOOL",
        })

    def disagree(self, path, reader, saw, artifact):
        name = "counterexample-%03d%s" % (len(self.counterexamples), os.path.splitext(path)[1])
        os.makedirs(self.args.out, exist_ok=True)
        shutil.copy(path, os.path.join(self.args.out, name))
        self.counterexamples.append({"file": name, "reader": reader, "reader_saw": saw,
                                     "audit": {"kind": artifact.get("kind"), "tensors": audited_tensors(artifact)}})

    def judge(self, path, artifact=None):
        self.judged += 1
        if artifact is None:
            artifact = audit(self.args.audit, path)
        if "crash" in artifact:
            self.disagree(path, "ckpt-audit itself", artifact, {})
            return
        if artifact.get("verdict") != "pass":
            return
        self.passed += 1
        kind = artifact.get("kind")
        if kind in ("torch-zip", "torch-legacy"):
            self.torch_load(path, artifact)
        if kind in ("pickle", "torch-legacy"):
            self.pickle_load(path, artifact)
        if kind == "numpy":
            self.numpy_load(path, artifact)
        if kind == "safetensors":
            self.safetensors(path, artifact)
        if kind == "lensemble-tar":
            self.tars(path, artifact)
        if is_zip(path):
            self.zips(path, artifact)

    def torch_load(self, path, artifact):
        recorder = Recorder()
        saved = pickle.Unpickler
        pickle.Unpickler = recorder.unpickler(saved)  # torch 1.13 ignores pickle_module without weights_only
        try:
            obj = self.torch.load(path, weights_only=False)
        except Exception as error:  # a reader that refuses the file fails closed
            obj = error
        finally:
            pickle.Unpickler = saved
        self.checks["torch.load"] += 1
        if recorder.refused:
            self.disagree(path, "torch.load", {"refused imports": recorder.refused}, artifact)
            return
        if not recorder.imports and not isinstance(obj, Exception) and audited_tensors(artifact):
            self.disagree(path, "torch.load", "no import recorded: the oracle did not run", artifact)
            return
        if isinstance(obj, Exception):
            return
        seen = tensor_listing(obj, self.torch)
        if seen != audited_tensors(artifact):
            self.disagree(path, "torch.load", seen, artifact)

    def pickle_load(self, path, artifact):
        recorder = Recorder()
        with open(path, "rb") as f:
            try:
                recorder.unpickler(pickle.Unpickler)(f).load()
            except Refused:
                pass
            except Exception:
                return
        self.checks["pickle.load"] += 1
        if recorder.refused:
            self.disagree(path, "pickle.load", {"refused imports": recorder.refused}, artifact)

    def numpy_load(self, path, artifact):
        try:
            array = self.numpy.load(path, allow_pickle=False)
        except Exception:
            return
        self.checks["numpy.load"] += 1
        dtypes = {"float32": "F32", "float64": "F64", "float16": "F16", "int64": "I64", "int32": "I32",
                  "uint8": "U8", "bool": "BOOL", "int8": "I8", "int16": "I16"}
        seen = {"": (dtypes.get(str(array.dtype), str(array.dtype)), list(array.shape))}
        if seen != audited_tensors(artifact):
            self.disagree(path, "numpy.load", seen, artifact)

    def safetensors(self, path, artifact):
        with open(path, "rb") as f:
            data = f.read()
        try:
            (n,) = struct.unpack("<Q", data[:8])
            header = json.loads(data[8:8 + n])
        except Exception:
            return
        self.checks["safetensors header"] += 1
        seen = {k: (v["dtype"], v["shape"]) for k, v in header.items() if k != "__metadata__"}
        if seen != audited_tensors(artifact):
            self.disagree(path, "safetensors header", seen, artifact)

    def zips(self, path, artifact):
        try:
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
        except Exception:
            return
        self.checks["zipfile"] += 1
        folded = [n.lower() for n in names]
        if len(set(folded)) != len(folded):
            self.disagree(path, "zipfile", {"names equal but for case": names}, artifact)
            return
        listed = subprocess.run(["unzip", "-Z1", path], capture_output=True)
        if listed.returncode == 0:
            self.checks["unzip"] += 1
            if sorted(listed.stdout.decode(errors="replace").split("\n")[:-1]) != sorted(names):
                self.disagree(path, "unzip", {"unzip": listed.stdout.decode(errors="replace"), "zipfile": names},
                              artifact)

    def tars(self, path, artifact):
        expected = sorted(f["name"] for f in artifact.get("files", []))
        computed = artifact.get("content_hash", {}).get("computed")
        readers = {
            "tarfile": lambda out: tarfile.open(path).extractall(out, filter="fully_trusted")
            if sys.version_info >= (3, 12) else tarfile.open(path).extractall(out),
            "GNU tar": lambda out: subprocess.run(["tar", "-xf", path, "-C", out], check=True, capture_output=True),
            "bsdtar": lambda out: subprocess.run(["bsdtar", "-xf", path, "-C", out], check=True, capture_output=True),
        }
        for reader, extract in readers.items():
            out = tempfile.mkdtemp(dir=self.work)
            try:
                extract(out)
            except Exception:
                shutil.rmtree(out, ignore_errors=True)
                continue  # the reader refuses it: fails closed
            self.checks[reader] += 1
            files = []
            for root, _, names in os.walk(out):
                files += [os.path.relpath(os.path.join(root, n), out) for n in names]
            # One top folder, if the tar has one, is the artifact's folder.
            tops = {f.split("/")[0] for f in files}
            base = out
            if len(tops) == 1 and all("/" in f for f in files):
                base = os.path.join(out, tops.pop())
                files = [f.split("/", 1)[1] for f in files]
            if sorted(files) != expected:
                self.disagree(path, reader, {"members": sorted(files)}, artifact)
            else:
                again = audit(self.args.audit, base)
                if again.get("content_hash", {}).get("computed") != computed:
                    self.disagree(path, reader, {"extracted content hash": again.get("content_hash")}, artifact)
            shutil.rmtree(out, ignore_errors=True)


# ---- seeds ---------------------------------------------------------------------------------

def make_seeds(args, work, judge):
    torch = judge.torch
    numpy = judge.numpy
    seeds = []

    def path(name):
        return os.path.join(work, "seed-" + name)

    g = torch.Generator().manual_seed(args.seed)
    state = collections.OrderedDict()
    state["encoder.weight"] = torch.randn(4, 3, generator=g)
    state["encoder.bias"] = torch.randn(4, generator=g)
    state["head.table"] = torch.arange(6, dtype=torch.int64)
    state["tied"] = state["encoder.weight"]
    torch.save(state, path("state.pt"))
    torch.save({"model": state, "epoch": 3}, path("nested.pt"))
    torch.save(state, path("legacy.pt"), _use_new_zipfile_serialization=False)
    seeds += [path("state.pt"), path("nested.pt"), path("legacy.pt")]
    for protocol in range(6):
        with open(path("plain-%d.pkl" % protocol), "wb") as f:
            pickle.dump({"lr": 0.1, "steps": [1, 2, 3], "name": "run", "blob": b"x" * 300}, f, protocol=protocol)
        seeds.append(path("plain-%d.pkl" % protocol))
    numpy.save(path("array.npy"), numpy.arange(12, dtype=numpy.float32).reshape(3, 4))
    seeds.append(path("array.npy"))
    artifact = os.path.join(work, "artifact")
    subprocess.run([args.make_artifact, artifact, "4", "64"], check=True, capture_output=True)
    # Copied out of its artifact: given alone beside its header.json it is input-shard-alone.
    shutil.copy(os.path.join(artifact, "weights.safetensors"), path("weights.safetensors"))
    seeds.append(path("weights.safetensors"))
    for fmt, name in ((tarfile.PAX_FORMAT, "pax"), (tarfile.GNU_FORMAT, "gnu"), (tarfile.USTAR_FORMAT, "ustar")):
        with tarfile.open(path("tarfile-%s.tar" % name), "w", format=fmt) as t:
            for member in sorted(os.listdir(artifact)):
                t.add(os.path.join(artifact, member), arcname=member)
        seeds.append(path("tarfile-%s.tar" % name))
    subprocess.run(["tar", "-cf", path("gnutar.tar"), "-C", artifact, "."], check=True)
    subprocess.run(["bsdtar", "-cf", path("bsdtar.tar"), "-C", artifact, "."], check=True)
    seeds += [path("gnutar.tar"), path("bsdtar.tar")]
    return seeds


# ---- mutations -----------------------------------------------------------------------------

def tar_header_checksum(block):
    block = bytearray(block)
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def mutate(data, rng, name):
    data = bytearray(data)
    choice = rng.randrange(9)
    if choice == 0 and data:  # a byte flipped where structure lives: the first or last 600 bytes
        region = rng.choice([(0, min(600, len(data))), (max(0, len(data) - 600), len(data))])
        at = rng.randrange(*region) if region[1] > region[0] else 0
        data[at] ^= 1 << rng.randrange(8)
        return bytes(data), "flip@%d" % at
    if choice == 1:
        cut = rng.randrange(len(data) + 1)
        return bytes(data[:cut]), "cut@%d" % cut
    if choice == 2:  # a complete zip appended: a polyglot
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps({"x": 1}, protocol=2))
        return bytes(data) + buffer.getvalue(), "zip appended"
    if choice == 3 and name.endswith((".pt",)) and is_zip(io.BytesIO(bytes(data))):
        # the end record copied into the comment (a second end record), or a plain comment
        end = bytes(data).rfind(b"PK\x05\x06")
        if end >= 0:
            record = bytes(data[end:end + 22])
            extra = record if rng.random() < 0.5 else b"a comment"
            data[end + 20:end + 22] = struct.pack("<H", len(extra))
            return bytes(data) + extra, "comment of %d bytes" % len(extra)
    if choice == 4 and name.endswith(".pt") and is_zip(io.BytesIO(bytes(data))):
        # a member renamed to differ only in case (both in the local header and the directory)
        blob = bytes(data)
        target = b"data.pkl"
        at = blob.find(target)
        if at >= 0:
            blob = blob.replace(target, b"DATA.PKL", 1 if rng.random() < 0.5 else 2)
            return blob, "data.pkl renamed by case"
    if choice == 5 and name.endswith(".tar") and len(data) >= 512:
        # a header field rewritten with its checksum fixed: prefix, type, size, name
        headers = [i for i in range(0, len(data) - 511, 512) if data[i + 257:i + 262] == b"ustar"]
        if headers:
            at = rng.choice(headers)
            block = bytearray(data[at:at + 512])
            field = rng.randrange(4)
            if field == 0:
                block[345:360] = b"../../escaped\0\0"
            elif field == 1:
                block[156] = ord(rng.choice("0125xLgK7"))
            elif field == 2:
                block[124:136] = b"%011o\0" % rng.randrange(0, 4096)
            else:
                block[0:20] = b"weights.safetensors\0"
            data[at:at + 512] = tar_header_checksum(block)
            return bytes(data), "tar header %d field %d" % (at, field)
    if choice == 6 and name.endswith(".pkl") and data[:2] in (b"\x80\x04", b"\x80\x05"):
        # a FRAME opcode spliced in at a random boundary, with a random length
        at = rng.randrange(2, max(3, len(data) - 1))
        frame = b"\x95" + struct.pack("<Q", rng.randrange(1, 64))
        return bytes(data[:at]) + frame + bytes(data[at:]), "frame@%d" % at
    if choice == 7:  # trailing bytes
        return bytes(data) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))), "trailing bytes"
    if data:  # a byte anywhere
        at = rng.randrange(len(data))
        data[at] = rng.randrange(256)
        return bytes(data), "byte@%d" % at
    return bytes(data), "none"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--audit", required=True)
    parser.add_argument("--make-artifact", required=True)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--mutants", type=int, default=400)
    parser.add_argument("--out", default="differential-counterexamples")
    args = parser.parse_args()
    for tool in ("tar", "bsdtar", "unzip"):
        if shutil.which(tool) is None:
            print("differential: %s is missing (scripts/install-deps --test installs it)" % tool, file=sys.stderr)
            return 2
    work = tempfile.mkdtemp(prefix="ckpt-differential-")
    try:
        judge = Judge(args, work)
        seeds = make_seeds(args, work, judge)
        rng = random.Random(args.seed)
        for seed in seeds:
            judge.judge(seed)
        if judge.passed != len(seeds):
            print("differential: only %d of %d seeds pass the audit" % (judge.passed, len(seeds)), file=sys.stderr)
            return 1
        batch = []
        for i in range(args.mutants):
            seed = seeds[i % len(seeds)]
            with open(seed, "rb") as f:
                mutated, how = mutate(f.read(), rng, seed)
            path = os.path.join(work, "mutant-%04d%s" % (i, os.path.splitext(seed)[1]))
            with open(path, "wb") as f:
                f.write(mutated)
            batch.append(path)
            if len(batch) == BATCH or i + 1 == args.mutants:
                for done, artifact in zip(batch, audit_many(args.audit, batch)):
                    judge.judge(done, artifact)
                    os.unlink(done)
                batch = []
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("differential: %d files judged (%d seeds, %d mutants, seed %d), %d passed the audit; reader checks: %s"
          % (judge.judged, len(seeds), args.mutants, args.seed, judge.passed,
             ", ".join("%s %d" % kv for kv in sorted(judge.checks.items()))))
    if judge.counterexamples:
        with open(os.path.join(args.out, "counterexamples.json"), "w") as f:
            json.dump(judge.counterexamples, f, indent=1, default=str)
        print("differential: %d counterexamples in %s" % (len(judge.counterexamples), args.out), file=sys.stderr)
        for c in judge.counterexamples[:10]:
            print("  %s: %s saw %s" % (c["file"], c["reader"], json.dumps(c["reader_saw"], default=str)[:300]),
                  file=sys.stderr)
        return 1
    print("differential: no counterexample")
    return 0


if __name__ == "__main__":
    sys.exit(main())
