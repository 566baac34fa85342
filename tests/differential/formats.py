#!/usr/bin/python3
"""The differential property of inputs.md 1a for the formats of formats.md (issue 46 item 2),
judged by each format's real loader, as tests/differential/differential.py judges tars,
zips, torch files and pickles.

Seeds are the clean files this project's own fixture scripts write with Debian's tools
(joblib, numpy, onnx, h5py, msgpack, torch: tests/joblib, tests/onnx, tests/hdf5,
tests/msgpack, tests/nemo) plus a few written here. Each format's mutator changes them the way
an attacker or a broken writer would, knowing the structure: lengths, offsets, dtypes, frames,
compression framing, member order and names, duplicated fields, external data locations,
links, trailing bytes. Every mutant is audited by ckpt-audit; whenever the audit PASSES it, the
format's real loader reads it, and must see exactly what the audit listed:

  joblib   joblib.load, with pickle's Python and C unpicklers replaced by ones whose
           find_class records every import and refuses any the audit never passes (nothing
           runs); the arrays it returns by path (name, dtype, shape) and the imports it made;
  npz      numpy.load with allow_pickle=False (the arrays) and allow_pickle=True (with pickle
           recorded: no import at all may happen);
  onnx     onnx.load with external data resolved in a scratch folder, open() recorded: the
           initializers (name, dtype, shape), and no file opened outside the model's folder;
  hdf5     h5py: every dataset (path, dtype, shape), and no soft, external or virtual link or
           storage that would read outside the file;
  keras    zipfile and h5py as Keras 3's saving_lib reads a .keras archive (Debian has no
           Keras): the weights' datasets, and the modules its config would make Keras import;
  msgpack  msgpack.unpackb with Flax's ext hook (its _msgpack_ext_unpack): the arrays by path;
  nemo     tarfile, yaml.safe_load of model_config.yaml (every Hydra target, _target_, target,
           cls and class, must be allowlisted) and torch.load of model_weights.ckpt recorded.

Any disagreement is a counterexample, written to --out with what each side saw, and the run
fails. Seeded and bounded (--mutants per format; CKPT_DIFFERENTIAL_MUTANTS raises it for a
longer run); the same --seed judges the same files.
"""
import argparse
import builtins
import collections
import io
import json
import os
import pickle
import random
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib

import batch_audit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import python_fixtures  # noqa: E402 (tests/python_fixtures.py: the generators, run in this interpreter)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# What a passing file may make a loader import (inputs.md section 6, formats.md sections 3, 9).
JOBLIB_SAFE = {
    ("joblib.numpy_pickle", "NumpyArrayWrapper"), ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"), ("_codecs", "encode"),
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "bytearray"),
    ("builtins", "complex"), ("builtins", "slice"),
}
TORCH_SAFE = {
    ("collections", "OrderedDict"), ("torch._utils", "_rebuild_tensor"), ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_tensor_v3"), ("torch._utils", "_rebuild_parameter"),
    ("torch._utils", "_rebuild_parameter_with_state"), ("torch", "Size"), ("torch", "device"),
    ("torch._tensor", "_rebuild_from_type_v2"), ("torch.nn.parameter", "Parameter"), ("_codecs", "encode"),
}
NEMO_TARGET_PREFIXES = ("nemo.collections.", "nemo.core.", "torch.nn.", "torch.optim.", "torch.utils.data.")
DTYPES = {"float16": "F16", "float32": "F32", "float64": "F64", "int8": "I8", "int16": "I16", "int32": "I32",
          "int64": "I64", "uint8": "U8", "uint16": "U16", "uint32": "U32", "uint64": "U64", "bool": "BOOL",
          "complex64": "C64", "complex128": "C128"}


class Refused(Exception):
    pass


class Recorder:
    """find_class for pickle's Python and C unpicklers: records, refuses what is not `safe`."""

    def __init__(self, safe):
        self.safe = safe
        self.imports = []
        self.refused = []

    def check(self, module, name):
        self.imports.append((module, name))
        if (module, name) not in self.safe and not (module == "torch" and name.endswith("Storage")):
            self.refused.append((module, name))
            raise Refused("%s.%s" % (module, name))

    def __enter__(self):
        recorder = self
        self.saved = (pickle._Unpickler.find_class, pickle.Unpickler, pickle.load, pickle.loads)

        def python_find_class(unpickler, module, name):
            recorder.check(module, name)
            return recorder.saved[0](unpickler, module, name)

        class Recording(self.saved[1]):
            def find_class(self, module, name):
                recorder.check(module, name)
                return super().find_class(module, name)

        pickle._Unpickler.find_class = python_find_class
        pickle.Unpickler = Recording
        pickle.load = lambda f, **kw: Recording(f, **kw).load()
        pickle.loads = lambda b, **kw: Recording(io.BytesIO(b), **kw).load()
        return self

    def __exit__(self, *exc):
        pickle._Unpickler.find_class, pickle.Unpickler, pickle.load, pickle.loads = self.saved
        return False


def token(dtype):
    return DTYPES.get(str(dtype), "OTHER")


def arrays_by_path(obj, np, prefix="", scalars=True):
    """Arrays in nested dicts and lists, by '.'-joined path (the audit's naming); numpy scalars
    too where the format stores them as arrays (Flax), not where they are pickled (joblib)."""
    out = {}
    if isinstance(obj, np.ndarray) and obj.dtype != object:
        out[prefix] = (token(obj.dtype), list(obj.shape))
    elif isinstance(obj, np.generic) and scalars:
        out[prefix] = (token(obj.dtype), [])
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.update(arrays_by_path(v, np, str(k) if prefix == "" else prefix + "." + str(k), scalars))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(arrays_by_path(v, np, str(i) if prefix == "" else prefix + "." + str(i), scalars))
    return out


def audited(artifact):
    return {t["name"]: (t["dtype"], t["shape"]) for t in artifact.get("tensors", [])}


# ---- the formats: seeds, mutations, the loader's reading --------------------------------------

class Format:
    name = ""
    suffix = ""

    def __init__(self, harness):
        self.h = harness
        self.np = harness.np

    def seeds(self, work):
        return []

    def mutate(self, data, rng):
        return generic_mutation(data, rng)

    def read(self, path, artifact):
        """What the loader saw, as a dict compared with the audit's; None: it refused the file."""
        raise NotImplementedError


def generic_mutation(data, rng):
    data = bytearray(data)
    choice = rng.randrange(5)
    if choice == 0 and data:
        region = rng.choice([(0, min(600, len(data))), (max(0, len(data) - 600), len(data))])
        at = rng.randrange(*region) if region[1] > region[0] else 0
        data[at] ^= 1 << rng.randrange(8)
        return bytes(data), "flip@%d" % at
    if choice == 1:
        cut = rng.randrange(len(data) + 1)
        return bytes(data[:cut]), "cut@%d" % cut
    if choice == 2:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps({"x": 1}, protocol=2))
        return bytes(data) + buffer.getvalue(), "zip appended"
    if choice == 3:
        return bytes(data) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))), "trailing bytes"
    if data:
        at = rng.randrange(len(data))
        data[at] = rng.randrange(256)
        return bytes(data), "byte@%d" % at
    return bytes(data), "none"


PAYLOAD = b"cposix\nsystem\n(Vtrue\ntR0"  # protocol 0 opcodes calling os.system('true'), stack left as found


def mutate_pickle(data, rng):
    """A pickle changed where its structure lives: an int or short string argument, a frame
    length, an opcode dropped or doubled, a call spliced in."""
    import pickletools
    try:
        ops = list(pickletools.genops(data))
    except Exception:
        return generic_mutation(data, rng)
    if not ops:
        return generic_mutation(data, rng)
    data = bytearray(data)
    choice = rng.randrange(6)
    ints = [(op, arg, pos) for op, arg, pos in ops if op.name in ("BININT1", "BININT2", "BININT")]
    texts = [(op, arg, pos) for op, arg, pos in ops if op.name in ("SHORT_BINUNICODE", "BINUNICODE")]
    frames = [(op, arg, pos) for op, arg, pos in ops if op.name == "FRAME"]
    if choice == 0 and ints:
        op, arg, pos = rng.choice(ints)
        width = {"BININT1": 1, "BININT2": 2, "BININT": 4}[op.name]
        value = rng.choice([0, 1, 2, 3, 4, 8, 16, 52, 255, arg + 1, max(0, arg - 1)]) % (1 << (8 * width))
        data[pos + 1:pos + 1 + width] = value.to_bytes(width, "little")
        return bytes(data), "%s@%d %d->%d" % (op.name, pos, arg, value)
    if choice == 1 and texts:
        op, arg, pos = rng.choice(texts)
        replacements = {"f8": ["f4", "i8", "O8", "V8", "S8"], "f4": ["f8", "f2", "O8"], "<": [">", "|", "="],
                        "C": ["F", "A"], "i8": ["f8", "u8", "O8"], "O8": ["f8", "V8"]}
        if arg in replacements and len(arg) == len(replacements[arg][0]):
            new = rng.choice([r for r in replacements[arg] if len(r) == len(arg)])
            head = 2 if op.name == "SHORT_BINUNICODE" else 5
            data[pos + head:pos + head + len(arg)] = new.encode()
            return bytes(data), "text@%d %r->%r" % (pos, arg, new)
    if choice == 2 and frames:
        op, arg, pos = rng.choice(frames)
        new = max(0, arg + rng.choice([-9, -1, 1, 9, 200]))
        data[pos + 1:pos + 9] = struct.pack("<Q", new)
        return bytes(data), "frame@%d %d->%d" % (pos, arg, new)
    if choice == 3 and len(ops) > 2:
        i = rng.randrange(1, len(ops) - 1)
        start, end = ops[i][2], ops[i + 1][2]
        if rng.random() < 0.5:
            return bytes(data[:start] + data[end:]), "drop %s@%d" % (ops[i][0].name, start)
        return bytes(data[:end] + data[start:end] + data[end:]), "double %s@%d" % (ops[i][0].name, start)
    if choice == 4 and len(ops) > 2:
        i = rng.randrange(1, len(ops))
        return bytes(data[:ops[i][2]] + PAYLOAD + data[ops[i][2]:]), "call spliced@%d" % ops[i][2]
    return generic_mutation(bytes(data), rng)


class Joblib(Format):
    name, suffix = "joblib", ".joblib"

    def seeds(self, work):
        self.h.made_by_python("joblib", work)
        np, joblib = self.np, self.h.joblib
        joblib.dump({"w": np.arange(4000, dtype=np.float32).reshape(40, 100), "b": np.zeros(7, dtype=np.int16),
                     "f": np.asfortranarray(np.ones((3, 5))), "o": np.array(["a", None], dtype=object)},
                    os.path.join(work, "protocol2.joblib"), protocol=2)
        names = ["arrays.joblib", "arrays.zlib", "arrays.gzip", "arrays.bz2", "arrays.xz", "arrays.lzma",
                 "clean.zf", "dtype_size_same.joblib", "protocol2.joblib"]
        return [os.path.join(work, n) for n in names]

    def mutate(self, data, rng):
        codec = None
        if data[:2] == b"ZF":
            codec = "zf"
        elif data[:2] == b"\x1f\x8b":
            codec = "gzip"
        elif data[:3] == b"BZh":
            codec = "bz2"
        elif data[:6] == b"\xfd7zXZ\0":
            codec = "xz"
        elif data[:1] == b"\x78":
            codec = "zlib"
        elif data[:1] == b"\x5d":
            codec = "lzma"
        if codec is None:
            return mutate_pickle(data, rng)
        import bz2
        import gzip
        import lzma
        if rng.random() < 0.3:  # the compression framing itself
            return generic_mutation(data, rng)
        try:
            if codec == "zf":
                start = 22 if data[21:22] == b" " else 21
                inner = zlib.decompress(data[start:])
            else:
                inner = {"gzip": gzip.decompress, "bz2": bz2.decompress, "xz": lzma.decompress,
                         "lzma": lzma.decompress, "zlib": zlib.decompress}[codec](data)
        except Exception:
            return generic_mutation(data, rng)
        mutated, how = mutate_pickle(inner, rng)
        if codec == "zf":
            length = len(mutated) if rng.random() < 0.8 else len(mutated) + rng.choice([-1, 1, 100])
            return b"ZF" + hex(length).encode().ljust(19) + zlib.compress(mutated), how + " (zf)"
        pack = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lambda b: lzma.compress(b, lzma.FORMAT_XZ),
                "lzma": lambda b: lzma.compress(b, lzma.FORMAT_ALONE), "zlib": zlib.compress}[codec]
        return pack(mutated), how + " (" + codec + ")"

    def read(self, path, artifact):
        with Recorder(JOBLIB_SAFE) as recorder:
            try:
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    obj = self.h.joblib.load(path)
            except Refused:
                obj = None
            except Exception:
                return None  # joblib refuses the file: fails closed
        seen = {"refused imports": sorted(set(recorder.refused))}
        if obj is not None:
            seen["arrays"] = arrays_by_path(obj, self.np, scalars=False)
        return seen

    def expected(self, artifact):
        return {"refused imports": [], "arrays": audited(artifact)}


class Npz(Format):
    name, suffix = "npz", ".npz"

    def seeds(self, work):
        np = self.np
        out = []
        for compressed in (False, True):
            path = os.path.join(work, "arrays-%d.npz" % compressed)
            (np.savez_compressed if compressed else np.savez)(
                path, w=np.arange(12, dtype=np.float32).reshape(3, 4), b=np.zeros(5, dtype=np.int64),
                big=np.ones((200, 300), dtype=np.float16), scalar=np.float64(2.5))
            out.append(path)
        return out

    def mutate(self, data, rng):
        try:
            members = [(i, zipfile.ZipFile(io.BytesIO(data)).read(i.filename))
                       for i in zipfile.ZipFile(io.BytesIO(data)).infolist()]
        except Exception:
            return generic_mutation(data, rng)
        if rng.random() < 0.35 or not members:
            return generic_mutation(data, rng)
        choice = rng.randrange(6)
        members = [(info.filename, body, info.compress_type) for info, body in members]
        how = ""
        i = rng.randrange(len(members))
        name, body, method = members[i]
        if choice == 0:
            new = rng.choice([name.upper(), name[:-4], "sub/" + name, "../" + name, name + "/", "w.npy"])
            members[i] = (new, body, method)
            how = "rename %s->%s" % (name, new)
        elif choice == 1:
            members.insert(rng.randrange(len(members) + 1), (name, body, method))
            how = "duplicate %s" % name
        elif choice == 2 and body[:6] == b"\x93NUMPY":
            header_len = struct.unpack("<H", body[8:10])[0]
            header = body[10:10 + header_len].decode("latin1")
            edits = [("'<f4'", "'<f8'"), ("'<f4'", "'|O'"), ("'<i8'", "'<i4'"), ("False", "True"),
                     ("(3, 4)", "(4, 3)"), ("(3, 4)", "(3, 5)"), ("(5,)", "(6,)"), ("'<f2'", "'>f2'"),
                     ("(200, 300)", "(300, 200)")]
            old, new = rng.choice(edits)
            if old in header:
                header = header.replace(old, new, 1)
                padded = header.rstrip("\n").rstrip(" ")
                padded = padded + " " * (header_len - len(padded) - 1) + "\n" if len(padded) < header_len else header
                body = body[:10] + padded.encode("latin1")[:header_len].ljust(header_len, b" ") + body[10 + header_len:]
                members[i] = (name, body, method)
                how = "header %s->%s in %s" % (old, new, name)
        elif choice == 3:
            np = self.np
            payload = io.BytesIO()
            np.save(payload, np.array([1, "x"], dtype=object), allow_pickle=True)
            members.append(("obj.npy", payload.getvalue(), zipfile.ZIP_STORED))
            how = "object array added"
        elif choice == 4:
            members[i] = (name, body, zipfile.ZIP_DEFLATED if method == zipfile.ZIP_STORED else zipfile.ZIP_STORED)
            how = "method of %s swapped" % name
        else:
            members[i] = (name, body[:rng.randrange(len(body) + 1)], method)
            how = "member %s cut" % name
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for name, body, method in members:
                    z.writestr(zipfile.ZipInfo(name), body, compress_type=method)
        return out.getvalue(), how or "rebuilt"

    def read(self, path, artifact):
        np = self.np
        seen = {}
        try:
            with np.load(path, allow_pickle=False) as f:
                seen["arrays"] = {k: (token(f[k].dtype), list(f[k].shape)) for k in f.files}
        except Exception:
            return None
        with Recorder(set()) as recorder:
            try:
                with np.load(path, allow_pickle=True) as f:
                    for k in f.files:
                        f[k]
            except Exception:
                pass
        seen["imports"] = sorted(set(recorder.imports))
        return seen

    def expected(self, artifact):
        return {"arrays": audited(artifact), "imports": []}


class Onnx(Format):
    name, suffix = "onnx", ".onnx"

    def seeds(self, work):
        self.h.made_by_python("onnx", work)
        return [os.path.join(work, n) for n in ("model.onnx", "external.onnx", "function_clean.onnx")]

    def folder_files(self, seed_dir):
        return {"weights.data": open(os.path.join(seed_dir, "weights.data"), "rb").read()}

    def mutate(self, data, rng):
        onnx = self.h.onnx
        if rng.random() < 0.3:
            return generic_mutation(data, rng)
        try:
            m = onnx.load_model_from_string(data)
        except Exception:
            return generic_mutation(data, rng)
        from onnx import TensorProto, helper
        choice = rng.randrange(8)
        inits = list(m.graph.initializer)
        if choice == 0 and inits:
            t = rng.choice(inits)
            t.dims[:] = [rng.choice([0, 1, 2, 3, 4, 12, 1 << 40]) for _ in range(rng.randrange(0, 3))]
            return m.SerializeToString(), "dims of %s" % t.name
        if choice == 1 and inits:
            t = rng.choice(inits)
            t.data_type = rng.choice([0, 1, 2, 7, 10, 11, 16, 25, 99])
            return m.SerializeToString(), "data_type of %s" % t.name
        if choice == 2 and inits:
            t = rng.choice(inits)
            location = rng.choice(["../secret.bin", "/etc/passwd", ".weights.data", "./weights.data",
                                   "sub/../weights.data", "weights.data", "missing.bin", "weights.data\\x"])
            t.ClearField("raw_data")
            t.data_location = TensorProto.EXTERNAL
            del t.external_data[:]
            t.external_data.add(key="location", value=location)
            if rng.random() < 0.5:
                t.external_data.add(key="offset", value=str(rng.choice([0, 4, 48, 4096])))
            if rng.random() < 0.5:
                t.external_data.add(key="length", value=str(rng.choice([0, 4, 48, 1 << 33])))
            return m.SerializeToString(), "external %s at %r" % (t.name, location)
        if choice == 3 and inits:
            dup = TensorProto()
            dup.CopyFrom(rng.choice(inits))
            m.graph.initializer.append(dup)
            return m.SerializeToString(), "initializer %s twice" % dup.name
        if choice == 4:
            domain = rng.choice(["ai.onnx.contrib", "com.example", "com.local", ""])
            op = rng.choice(["PyOp", "Relu", "Custom"])
            target = m.functions[0].node if m.functions and rng.random() < 0.5 else m.graph.node
            target.append(helper.make_node(op, [m.graph.input[0].name], ["extra_out"], domain=domain))
            return m.SerializeToString(), "node %s.%s added" % (domain, op)
        if choice == 5:
            values = helper.make_tensor("sv", TensorProto.FLOAT, [2], [1.0, 2.0])
            if rng.random() < 0.6:
                values.ClearField("float_data")
                values.data_location = TensorProto.EXTERNAL
                values.external_data.add(key="location", value=rng.choice(["../x.bin", "weights.data"]))
            indices = helper.make_tensor("si", TensorProto.INT64, [2], [0, 3])
            node = helper.make_node("Constant", [], ["C"], sparse_value=helper.make_sparse_tensor(values, indices, [4]))
            m.graph.node.insert(0, node)
            return m.SerializeToString(), "sparse Constant added"
        if choice == 6 and inits:
            t = rng.choice(inits)
            if t.raw_data:
                t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data) + 1)]
            return m.SerializeToString(), "raw_data of %s cut" % t.name
        return generic_mutation(data, rng)

    def read(self, path, artifact):
        onnx = self.h.onnx
        folder = os.path.dirname(os.path.abspath(path))
        opened = []
        saved_open = builtins.open

        def recording_open(file, *args, **kwargs):
            opened.append(os.path.abspath(str(file)) if isinstance(file, (str, os.PathLike)) else file)
            return saved_open(file, *args, **kwargs)
        builtins.open = recording_open
        try:
            m = onnx.load(path)
        except Exception:
            return None
        finally:
            builtins.open = saved_open
        from onnx import numpy_helper
        arrays = {}
        graphs = [m.graph]  # and every subgraph a node's attributes hold, as a runtime loads them
        try:
            while graphs:
                graph = graphs.pop()
                for t in graph.initializer:
                    a = numpy_helper.to_array(t)
                    arrays[t.name] = (token(a.dtype), list(a.shape))
                for node in graph.node:
                    for attribute in node.attribute:
                        if attribute.HasField("g"):
                            graphs.append(attribute.g)
                        graphs.extend(attribute.graphs)
        except Exception:
            return None  # the runtime would refuse the tensor
        outside = sorted({f for f in opened if isinstance(f, str) and os.path.dirname(f) != folder})
        return {"arrays": arrays, "opened outside the folder": outside}

    def expected(self, artifact):
        return {"arrays": audited(artifact), "opened outside the folder": []}


class Hdf5(Format):
    name, suffix = "hdf5", ".h5"

    def seeds(self, work):
        self.h.made_by_python("hdf5", work)
        h5py, np = self.h.h5py, self.np
        with h5py.File(os.path.join(work, "large.h5"), "w") as f:
            f.create_dataset("layer/kernel", data=np.ones((512, 512), dtype=np.float32), chunks=(64, 64),
                             compression="gzip")
            f.create_dataset("layer/bias", data=np.zeros(512, dtype=np.float32))
            f.attrs["keras_version"] = "2.13.1"
        return [os.path.join(work, n) for n in ("keras2_model.h5", "tf_model.h5", "userblock.h5", "large.h5")]

    def mutate(self, data, rng):
        if rng.random() < 0.6:
            return generic_mutation(data, rng)
        h5py = self.h.h5py
        work = tempfile.mkdtemp(dir=self.h.work)
        path = os.path.join(work, "m.h5")
        with open(path, "wb") as f:
            f.write(data)
        try:
            with h5py.File(path, "r+") as f:
                choice = rng.randrange(5)
                if choice == 0:
                    f["ext"] = h5py.ExternalLink(rng.choice(["/etc/hostname", "other.h5", "../x.h5"]), "/data")
                    how = "external link"
                elif choice == 1:
                    f["soft"] = h5py.SoftLink(rng.choice(["/nowhere", "/" + next(iter(f.keys()), "x")]))
                    how = "soft link"
                elif choice == 2:
                    f.create_dataset("ext_store", shape=(4,), dtype="f4", external=[("outside.bin", 0, 16)])
                    how = "external storage"
                elif choice == 3:
                    f.attrs["model_config"] = json.dumps({"class_name": "Lambda", "config": {"function": "x"}})
                    how = "Lambda config attribute"
                else:
                    f.create_dataset("extra", data=self.np.arange(10, dtype=rng.choice(["f4", "i8", "u2", "c8"])))
                    how = "dataset added"
            with open(path, "rb") as f:
                return f.read(), how
        except Exception:
            return generic_mutation(data, rng)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def read(self, path, artifact):
        h5py = self.h.h5py
        try:
            f = h5py.File(path, "r")
        except Exception:
            return None
        datasets = {}
        reaching = []
        try:
            def walk(group, prefix):
                for key in group.keys():
                    link = group.get(key, getlink=True)
                    full = prefix + key
                    if isinstance(link, h5py.SoftLink):
                        continue  # a name for an object of this file; enumeration does not follow it
                    if isinstance(link, h5py.ExternalLink):
                        reaching.append(full)
                        continue
                    obj = group[key]
                    if isinstance(obj, h5py.Group):
                        walk(obj, full + "/")
                    elif isinstance(obj, h5py.Dataset):
                        if obj.is_virtual or obj.external:
                            reaching.append(full)
                        datasets[full] = (token(obj.dtype), list(obj.shape))
            walk(f, "")
        except Exception:
            return None
        finally:
            f.close()
        return {"arrays": datasets, "reaching outside": sorted(reaching)}

    def expected(self, artifact):
        # Datasets of a type with no token are listed as OTHER by both sides.
        return {"arrays": audited(artifact), "reaching outside": []}


class Keras(Format):
    name, suffix = "keras", ".keras"

    def seeds(self, work):
        self.h.made_by_python("hdf5", work)
        return [os.path.join(work, n) for n in ("dense.keras", "functional.keras", "npz_weights.keras")]

    def mutate(self, data, rng):
        try:
            z = zipfile.ZipFile(io.BytesIO(data))
            members = [(i.filename, z.read(i.filename), i.compress_type) for i in z.infolist()]
        except Exception:
            return generic_mutation(data, rng)
        if rng.random() < 0.3:
            return generic_mutation(data, rng)
        choice = rng.randrange(4)
        how = "rebuilt"
        for i, (name, body, method) in enumerate(members):
            if name != "config.json" or choice > 1:
                continue
            config = json.loads(body)
            objects = []

            def collect(value):
                if isinstance(value, dict):
                    if "class_name" in value:
                        objects.append(value)
                    for v in value.values():
                        collect(v)
                elif isinstance(value, list):
                    for v in value:
                        collect(v)
            collect(config)
            target = rng.choice(objects)
            module = rng.choice(["os", "builtins", "keras.src.saving.saving_lib", "keras.layers", "keras_hub.models",
                                 "subprocess", "keras.utils"])
            target["module"] = module
            if choice == 1:
                target["class_name"] = "function"
                target["config"] = rng.choice(["relu", "exec", "eval", "get_file", "system", "mean_squared_error"])
                target["registered_name"] = "function"
            members[i] = (name, json.dumps(config).encode(), method)
            how = "object %s module %s" % (target.get("class_name"), module)
        if choice == 2:
            i = rng.randrange(len(members))
            new = rng.choice(["CONFIG.JSON", "config.json", "x/../config.json", "model.weights.h5", "extra.py"])
            members[i] = (new, members[i][1], members[i][2])
            how = "member renamed %s" % new
        if choice == 3:
            members.append((rng.choice(["config.json", "model.weights.h5", "assets/x.pkl"]),
                            pickle.dumps({"x": 1}), zipfile.ZIP_STORED))
            how = "member added"
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for name, body, method in members:
                    z.writestr(zipfile.ZipInfo(name), body, compress_type=method)
        return out.getvalue(), how

    def read(self, path, artifact):
        """As Keras 3's saving_lib.load_model reads an archive (its published source): config.json
        parsed; for every serialized object, the module Keras would import (any outside the
        keras packages, and under builtins any name that is not a Keras built-in, before 3.9);
        model.weights.h5 (or .npz) read by h5py (numpy)."""
        try:
            z = zipfile.ZipFile(path)
            config = json.loads(z.read("config.json"))
        except Exception:
            return None
        imports = []

        def walk(value):
            if isinstance(value, dict):
                if "class_name" in value and isinstance(value.get("module"), str):
                    module = value["module"]
                    root = module.split(".")[0]
                    builtin = module == "builtins" and value.get("class_name") == "function" and \
                        value.get("config") in self.h.keras_builtins
                    if root not in ("keras", "keras_hub", "keras_nlp", "keras_cv") and not builtin:
                        imports.append(module)
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)
        walk(config)
        arrays = {}
        names = z.namelist()
        try:
            if "model.weights.h5" in names:
                with self.h.h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
                    f.visititems(lambda n, o: arrays.__setitem__(n, (token(o.dtype), list(o.shape)))
                                 if isinstance(o, self.h.h5py.Dataset) else None)
            elif "model.weights.npz" in names:
                with self.np.load(io.BytesIO(z.read("model.weights.npz")), allow_pickle=False) as f:
                    arrays = {k: (token(f[k].dtype), list(f[k].shape)) for k in f.files}
        except Exception:
            return None
        return {"imports": sorted(set(imports)), "arrays": arrays}

    def expected(self, artifact):
        return {"imports": [], "arrays": audited(artifact)}


class Msgpack(Format):
    name, suffix = "msgpack", ".msgpack"

    def seeds(self, work):
        self.h.made_by_python("msgpack", work)
        return [os.path.join(work, n) for n in ("flax_model.msgpack", "large.msgpack", "long_bin.msgpack")]

    def mutate(self, data, rng):
        msgpack = self.h.msgpack
        if rng.random() < 0.4:
            return generic_mutation(data, rng)
        try:
            obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception:
            return generic_mutation(data, rng)
        exts = []

        def collect(value, parent, key):
            if isinstance(value, msgpack.ExtType):
                exts.append((parent, key, value))
            elif isinstance(value, dict):
                for k, v in value.items():
                    collect(v, value, k)
        collect(obj, None, None)
        choice = rng.randrange(4)
        if choice == 0 and exts:
            parent, key, ext = rng.choice(exts)
            try:
                shape, dtype, buf = msgpack.unpackb(ext.data, raw=False)
            except Exception:
                return generic_mutation(data, rng)
            edit = rng.randrange(4)
            if edit == 0:
                shape = list(shape) + [1] if rng.random() < 0.5 else list(shape)[:-1]
            elif edit == 1:
                dtype = rng.choice(["float64", "int8", "object", "<U4", "float16", "bfloat16"])
            elif edit == 2:
                buf = buf[:rng.randrange(len(buf) + 1)]
            else:
                parent[key] = msgpack.ExtType(rng.choice([0, 2, 3, 4, 9, 127]), ext.data)
                return msgpack.packb(obj, use_bin_type=True), "ext code of %s" % key
            parent[key] = msgpack.ExtType(ext.code, msgpack.packb((shape, dtype, buf), use_bin_type=True))
            return msgpack.packb(obj, use_bin_type=True), "ext %s edit %d" % (key, edit)
        if choice == 1 and isinstance(obj, dict) and obj:
            key = rng.choice(list(obj.keys()))
            raw = msgpack.packb(obj, use_bin_type=True)
            head = raw[0]
            if 0x80 <= head <= 0x8e:  # a fixmap: one more entry, the key again
                return bytes([head + 1]) + raw[1:] + msgpack.packb(key) + msgpack.packb(None), "key %r twice" % key
        if choice == 2:
            deep = obj
            for _ in range(rng.choice([10, 200])):
                deep = {"n": deep}
            return msgpack.packb(deep, use_bin_type=True), "nested"
        return generic_mutation(data, rng)

    def read(self, path, artifact):
        msgpack, np = self.h.msgpack, self.np

        def ext_hook(code, data):  # flax.serialization._msgpack_ext_unpack
            if code in (1, 3):
                shape, dtype_name, buffer = msgpack.unpackb(data, raw=False)
                array = np.frombuffer(buffer, dtype=np.dtype(dtype_name)).reshape(shape)
                return array if code == 1 else array[()]
            if code == 2:
                real, imag = msgpack.unpackb(data)
                return complex(real, imag)
            return msgpack.ExtType(code, data)
        try:
            with open(path, "rb") as f:
                obj = msgpack.unpackb(f.read(), ext_hook=ext_hook, raw=False)
        except Exception:
            return None

        def unchunk(value):  # flax's _unchunk_array_leaves_in_place
            if isinstance(value, dict):
                if value.get("__msgpack_chunked_array__"):
                    chunks = [value["chunks"][str(i)] for i in range(len(value["chunks"]))]
                    shape = tuple(value["shape"][str(i)] for i in range(len(value["shape"])))
                    return np.concatenate(chunks).reshape(shape)
                return {k: unchunk(v) for k, v in value.items()}
            return value
        try:
            obj = unchunk(obj)
        except Exception:
            return None
        if any(isinstance(v, msgpack.ExtType) for v in _leaves(obj)):
            return None  # flax refuses an ext it does not know
        return {"arrays": arrays_by_path(obj, np)}

    def expected(self, artifact):
        return {"arrays": audited(artifact)}


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


class Nemo(Format):
    name, suffix = "nemo", ".nemo"

    def seeds(self, work):
        self.h.made_by_python("nemo", work)
        return [os.path.join(work, n) for n in ("clean.nemo", "cls_allowed.nemo")]

    def mutate(self, data, rng):
        try:
            t = tarfile.open(fileobj=io.BytesIO(data))
            members = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
        except Exception:
            return generic_mutation(data, rng)
        if rng.random() < 0.3:
            return generic_mutation(data, rng)
        choice = rng.randrange(4)
        how = "rebuilt"
        for i, (m, body) in enumerate(members):
            if not m.name.endswith("model_config.yaml") or body is None or choice > 1:
                continue
            key = rng.choice(["_target_", "target", "cls", "class", "classname"])
            value = rng.choice(["os.system", "nemo.collections.asr.modules.ConformerEncoder", "torch.nn.Linear",
                                "builtins.eval", "torch.load", "nemo.core.Exportable"])
            extra = "\nextra:\n  %s: %s\n  params:\n    command: x\n" % (key, value)
            if choice == 1:
                extra = rng.choice(["\nanchor: &a {x: 1}\nalias: *a\n", "\ntagged: !!python/name:os.system ''\n",
                                    "\nlist:\n  - %s: %s\n" % (key, value), "\n%s: {_target_: %s}\n" % (key, value)])
            members[i] = (m, body + extra.encode())
            how = "config %r" % extra.strip()[:60]
        if choice == 2:
            i = rng.randrange(len(members))
            m = members[i][0]
            m.name = rng.choice(["./../escape", "./model_weights.ckpt", "./MODEL_CONFIG.yaml", "./a/b/c.pkl"])
            how = "member renamed %s" % m.name
        if choice == 3:
            info = tarfile.TarInfo("./extra.pkl")
            body = pickle.dumps({"x": 1}) if rng.random() < 0.5 else b"\x80\x02cposix\nsystem\n(Vtrue\ntR."
            members.append((info, body))
            how = "pickle member added"
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w") as t:
            for m, body in members:
                if body is not None:
                    m.size = len(body)
                    t.addfile(m, io.BytesIO(body))
                else:
                    t.addfile(m)
        return out.getvalue(), how

    def read(self, path, artifact):
        import yaml
        try:
            t = tarfile.open(path)
            names = [m.name for m in t.getmembers()]
            config_name = next(n for n in names if n.lstrip("./") == "model_config.yaml")
            config = yaml.safe_load(t.extractfile(config_name))
            weights_name = next(n for n in names if n.lstrip("./") == "model_weights.ckpt")
            weights = t.extractfile(weights_name).read()
        except Exception:
            return None
        targets = []

        def walk(value):
            if isinstance(value, dict):
                for k, v in value.items():
                    if k in ("_target_", "target", "cls", "class"):
                        if not (isinstance(v, str) and v.startswith(NEMO_TARGET_PREFIXES)):
                            targets.append(str(v))
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)
        walk(config)
        with Recorder(TORCH_SAFE) as recorder:
            try:
                self.h.torch.load(io.BytesIO(weights), weights_only=False)
            except Exception:
                pass
        return {"unallowed targets": targets, "refused imports": sorted(set(recorder.refused))}

    def expected(self, artifact):
        return {"unallowed targets": [], "refused imports": []}


FORMATS = [Joblib, Npz, Onnx, Hdf5, Keras, Msgpack, Nemo]
BATCH = 64  # mutants audited by one ckpt-audit run


def KerasBuiltins():
    """The names Keras 3 finds under module builtins (its activations, losses and metrics), as
    the project pins them from Keras's source (lib/formats/keras_config/keras_api_table.inc)."""
    import re
    with open(os.path.join(ROOT, "lib/formats/keras_config/keras_api_table.inc")) as f:
        table = f.read()
    block = table[table.index("kKerasBuiltinFunctions[]"):]
    block = block[:block.index("};")]
    return {m.group(2) for m in re.finditer(r'"keras\.(activations|losses|metrics)\.([A-Za-z0-9_]+)"', block)}


class Harness:
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="ckpt-differential-formats-")
        import h5py
        import joblib
        import msgpack
        import numpy
        import onnx
        import torch
        import yaml  # noqa: F401 (NeMo's config reader, checked present)
        self.h5py, self.joblib, self.msgpack, self.np, self.onnx, self.torch = h5py, joblib, msgpack, numpy, onnx, torch
        self.keras_builtins = KerasBuiltins()
        self.judged = collections.Counter()
        self.passed = collections.Counter()
        self.checked = collections.Counter()
        self.counterexamples = []

    def made_by_python(self, name, work):
        """The files of generator `name` (tests/python_fixtures.py) copied into `work`: made in
        this interpreter into --fixtures unless the CTest fixture made them current there."""
        if not python_fixtures.make(self.args.fixtures, name):
            with open(os.path.join(self.args.fixtures, name + ".failed"), encoding="utf-8") as f:
                raise RuntimeError(f.read())
        made = os.path.join(self.args.fixtures, name)
        for entry in os.listdir(made):
            source = os.path.join(made, entry)
            if entry.startswith(".fixture-"):
                continue
            if os.path.isdir(source):
                shutil.copytree(source, os.path.join(work, entry))
            else:
                shutil.copy(source, os.path.join(work, entry))

    def audit(self, path):
        run = subprocess.run([self.args.audit, "--format", "json", path], capture_output=True, timeout=120)
        if run.returncode not in (0, 1, 2):
            return {"crash": run.returncode, "stderr": run.stderr.decode(errors="replace")[-2000:]}
        try:
            report = json.loads(run.stdout)
        except ValueError:
            return {"crash": "no JSON", "stderr": run.stderr.decode(errors="replace")[-2000:]}
        return report["artifacts"][0] if report.get("artifacts") else {"verdict": "error"}

    def disagree(self, fmt, path, how, saw, expected):
        name = "%s-%03d%s" % (fmt.name, len(self.counterexamples), fmt.suffix)
        os.makedirs(self.args.out, exist_ok=True)
        shutil.copy(path, os.path.join(self.args.out, name))
        self.counterexamples.append({"file": name, "format": fmt.name, "mutation": how, "loader_saw": saw,
                                     "audit_listed": expected})

    def audit_many(self, paths):
        return batch_audit.audit_many(self.args.audit, paths, self.audit)

    def judge(self, fmt, path, how, extra_files=None):
        return self.judge_many(fmt, [(path, how, extra_files)])[0]

    def judge_many(self, fmt, cases):
        """Judges each (path, how, extra_files): the file copied as model<suffix> into a folder
        of its own (with the extra files), all audited in one run; True when the audit passed it,
        False when it did not, None when the audit crashed."""
        placed = []
        for path, how, extra_files in cases:
            folder = tempfile.mkdtemp(dir=self.work)
            target = os.path.join(folder, "model" + fmt.suffix)
            shutil.copy(path, target)
            for name, body in (extra_files or {}).items():
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(body)
            # A model with external data is audited as the folder it lives in.
            placed.append((folder, target, how, folder if extra_files else target))
        try:
            artifacts = self.audit_many([audited for _, _, _, audited in placed])
            return [self.judge_audited(fmt, target, how, artifact)
                    for (_, target, how, _), artifact in zip(placed, artifacts)]
        finally:
            for folder, _, _, _ in placed:
                shutil.rmtree(folder, ignore_errors=True)

    def judge_audited(self, fmt, target, how, artifact):
        self.judged[fmt.name] += 1
        if "crash" in artifact:
            self.disagree(fmt, target, how, {"ckpt-audit itself": artifact}, {})
            return None
        if artifact.get("verdict") != "pass":
            return False
        self.passed[fmt.name] += 1
        seen = fmt.read(target, artifact)
        if seen is None:
            return True  # the loader refuses what the audit passed: it fails closed
        self.checked[fmt.name] += 1
        expected = fmt.expected(artifact)
        if seen != expected:
            self.disagree(fmt, target, how, seen, expected)
        return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--audit", required=True)
    parser.add_argument("--seed", type=int, default=46)
    parser.add_argument("--mutants", type=int, default=150, help="per format")
    parser.add_argument("--out", default="differential-formats-counterexamples")
    parser.add_argument("--fixtures", help="where tests/python_fixtures.py keeps what it makes (default: a temporary folder)")
    parser.add_argument("--formats", default=",".join(f.name for f in FORMATS))
    parser.add_argument("--older-build", action="store_true",
                        help="judging an older ckpt-audit: a seed it fails is said, not fatal")
    args = parser.parse_args()
    args.mutants = int(os.environ.get("CKPT_DIFFERENTIAL_MUTANTS", args.mutants))
    harness = Harness(args)
    if not args.fixtures:
        args.fixtures = os.path.join(harness.work, "python-fixtures")
    try:
        for cls in FORMATS:
            fmt = cls(harness)
            if fmt.name not in args.formats.split(","):
                continue
            seed_dir = tempfile.mkdtemp(dir=harness.work)
            seeds = fmt.seeds(seed_dir)
            extra = fmt.folder_files(seed_dir) if hasattr(fmt, "folder_files") else None
            rng = random.Random("%d-%s" % (args.seed, fmt.name))
            for seed in seeds:
                needs = extra if (extra and seed.endswith("external.onnx")) else None
                if harness.judge(fmt, seed, "seed", needs) is not True:
                    print("differential: seed %s of %s does not pass the audit" % (os.path.basename(seed), fmt.name),
                          file=sys.stderr)
                    if not args.older_build:
                        return 1
            batch = []
            for i in range(args.mutants):
                seed = seeds[i % len(seeds)]
                with open(seed, "rb") as f:
                    mutated, how = fmt.mutate(f.read(), rng)
                path = os.path.join(seed_dir, "mutant-%04d" % i)
                with open(path, "wb") as f:
                    f.write(mutated)
                needs = extra if (extra and seed.endswith("external.onnx")) else None
                batch.append((path, how, needs))
                if len(batch) == BATCH or i + 1 == args.mutants:
                    harness.judge_many(fmt, batch)
                    for done, _, _ in batch:
                        os.unlink(done)
                    batch = []
    finally:
        shutil.rmtree(harness.work, ignore_errors=True)
    versions = "joblib %s, numpy %s, onnx %s, h5py %s (HDF5 %s), msgpack %s, torch %s, PyYAML %s" % (
        harness.joblib.__version__, harness.np.__version__, harness.onnx.__version__, harness.h5py.__version__,
        harness.h5py.version.hdf5_version, ".".join(map(str, harness.msgpack.version)), harness.torch.__version__,
        __import__("yaml").__version__)
    print("differential formats (seed %d; %s):" % (args.seed, versions))
    for name in sorted(harness.judged):
        print("  %-8s %4d judged, %4d passed the audit, %4d read by the loader" % (
            name, harness.judged[name], harness.passed[name], harness.checked[name]))
    if harness.counterexamples:
        with open(os.path.join(args.out, "counterexamples.json"), "w") as f:
            json.dump(harness.counterexamples, f, indent=1, default=str)
        print("differential: %d counterexamples in %s" % (len(harness.counterexamples), args.out), file=sys.stderr)
        for c in harness.counterexamples[:10]:
            print("  %s (%s): loader saw %s; audit listed %s" % (
                c["file"], c["mutation"], json.dumps(c["loader_saw"], default=str)[:300],
                json.dumps(c["audit_listed"], default=str)[:300]), file=sys.stderr)
        return 1
    print("differential: no counterexample")
    return 0


if __name__ == "__main__":
    sys.exit(main())
