#!/usr/bin/env python3
"""Writes conversion cases for tests/attestation_test.cpp without the tools: for each of a
torch zip and a legacy torch.save file, the checkpoint, a safetensors output written with
the standard library (header JSON plus bytes, as the format's spec lays it out) and the
unsigned payload of its derivation record (attestations.md section 4). Each tensor's source
record is found independently of the tools: a zip member located with zipfile, a legacy
storage through the file's own key list read by a stub unpickler that never builds a tensor.
Usage: make_derivations.py OUT_DIR (writes zip.pt, legacy.pt, *.safetensors, *.payload.json)."""
import ctypes
import hashlib
import io
import json
import os
import pickle
import struct
import sys
import zipfile

import torch

TOKENS = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64",
          torch.bool: "BOOL"}
ELEMENT = {"FloatStorage": 4, "HalfStorage": 2, "BFloat16Storage": 2, "LongStorage": 8, "BoolStorage": 1}
PREDICATE = "https://github.com/ckpt-audit/ckpt-audit/predicates/derivation/v1"


def raw(t):
    c = t.detach().contiguous().clone()
    return ctypes.string_at(c.data_ptr(), c.numel() * c.element_size())


def state_dict():
    torch.manual_seed(13)
    shared = torch.randn(10)
    return {
        "encoder.weight": torch.randn(4, 3),
        "encoder.half": torch.randn(5).half(),
        "encoder.bf16": torch.randn(6).bfloat16(),
        "predictor.steps": torch.arange(4, dtype=torch.int64).reshape(2, 2) + 1000,
        "predictor.mask": torch.tensor([True, False, True]),
        "predictor.scale": torch.tensor(2.5),
        "predictor.empty": torch.zeros(0),
        "head.first": shared[:4],   # two disjoint views of one storage
        "head.rest": shared[4:],
    }


# Tied weights: one tensor saved under two names; a conversion writes it once, under the name
# that sorts first, and records the other as an alias in __metadata__.
ALIASES = {"tied.encoder": "encoder.weight"}


def zip_sources(path, sd):
    """Tensor name -> (member name, offset in the member), by locating its bytes."""
    data = open(path, "rb").read()
    members = []
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if "/data/" not in info.filename:
                continue
            name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
            start = info.header_offset + 30 + name_len + extra_len
            members.append((info.filename, start, info.file_size))
    out = {}
    for name, t in sd.items():
        want = raw(t)
        offset = t.storage_offset() * t.element_size()
        nbytes = t.storage().nbytes()
        for member, start, size in members:
            if size == nbytes and data[start + offset:start + offset + len(want)] == want:
                out[name] = (member, offset)
                break
        else:
            raise SystemExit("no record holds " + name)
    return out


class StubUnpickler(pickle.Unpickler):
    """Reads the object pickle's structure without building anything torch would."""

    class Named:
        def __init__(self, name):
            self.name = name

        def __call__(self, *args):
            return ("call", self.name, args)

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            import collections
            return collections.OrderedDict
        return StubUnpickler.Named(name)

    def persistent_load(self, pid):
        return pid


def legacy_sources(path, sd):
    """Tensor name -> ("storage:<key>", absolute offset of its bytes)."""
    f = open(path, "rb")
    for _ in range(3):  # magic number, protocol version, sys_info
        pickle.load(f)
    obj = StubUnpickler(f).load()
    keys = pickle.load(f)
    storages = {}  # key -> (element size, absolute offset of the first byte)
    element = {}
    for value in obj.values():
        pid = value[2][0]  # _rebuild_tensor_v2(storage, ...): the persistent id tuple
        element[pid[2]] = ELEMENT[pid[1].name]
    for key in keys:
        count = struct.unpack("<q", f.read(8))[0]
        storages[key] = (element[key], f.tell())
        f.seek(count * element[key], io.SEEK_CUR)
    out = {}
    for name, value in obj.items():
        if name in ALIASES:
            continue
        pid, storage_offset = value[2][0], value[2][1]
        size, start = storages[pid[2]]
        out[name] = ("storage:" + pid[2], start + storage_offset * size)
        assert open(path, "rb").read()[out[name][1]:out[name][1] + len(raw(sd[name]))] == raw(sd[name])
    return out


def write_safetensors(path, sd):
    header, blobs, at = {"__metadata__": {"format": "pt", **ALIASES}}, [], 0
    for name in sorted(sd):
        b = raw(sd[name])
        header[name] = {"dtype": TOKENS[sd[name].dtype], "shape": list(sd[name].shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def sha256_file(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    out = sys.argv[1]
    sd = state_dict()
    saved = dict(sd, **{alias: sd[kept] for alias, kept in ALIASES.items()})
    for form in ("zip", "legacy"):
        ckpt = os.path.join(out, form + ".pt")
        torch.save(saved, ckpt, _use_new_zipfile_serialization=(form == "zip"))
        sources = zip_sources(ckpt, sd) if form == "zip" else legacy_sources(ckpt, sd)
        output = os.path.join(out, form + ".safetensors")
        write_safetensors(output, sd)
        statement = {
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": form + ".safetensors", "digest": {"sha256": sha256_file(output)}}],
            "predicateType": PREDICATE,
            "predicate": {
                "input": {"name": form + ".pt", "digest": {"sha256": sha256_file(ckpt)}},
                "tensors": [{"name": n, "dtype": TOKENS[t.dtype], "shape": list(t.shape),
                             "size_bytes": len(raw(t)), "sha256": hashlib.sha256(raw(t)).hexdigest(),
                             "source": {"record": sources[n][0], "offset_bytes": sources[n][1]}}
                            for n, t in sorted(sd.items())],
                "not_carried": [],
                "aliases": ALIASES,
            },
        }
        with open(os.path.join(out, form + ".payload.json"), "w") as f:
            json.dump(statement, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
