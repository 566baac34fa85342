#!/usr/bin/env python3
"""The canonical content hash (artifact-format.md section 5) of the tensors torch.load reads
from a checkpoint, written here from the spec alone: exact aliases count once (under the name
that sorts first), dtypes as manifest tokens, the structure frame of a schema 2 header.
Usage: lensemble_hash.py CHECKPOINT WMCP ROUND PARENT|none GROUP,GROUP"""
import ctypes
import hashlib
import struct
import sys

import torch

TOKENS = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}
path, wmcp, round_index, parent, groups = sys.argv[1:6]


def u64(n):
    return struct.pack("<Q", n)


def s(text):
    data = text.encode()
    return u64(len(data)) + data


loaded = torch.load(path)
kept, seen = {}, set()
for name in sorted(loaded, key=lambda k: k.encode()):
    t = loaded[name]
    key = (t.storage().data_ptr(), t.storage_offset(), t.dtype, tuple(t.shape), tuple(t.stride()))
    if key in seen:
        continue
    seen.add(key)
    kept[name] = t
h = hashlib.sha256()
h.update(s("lensemble.artifact.content.v1") + u64(len(kept)))
for name in sorted(kept, key=lambda k: k.encode()):
    t = kept[name].contiguous()
    h.update(s(name) + s(name.split(".")[0]) + s(TOKENS[t.dtype]) + u64(t.dim()) + b"".join(u64(d) for d in t.shape))
    h.update(ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()))
group_list = sorted(groups.split(","), key=lambda g: g.encode())
h.update(s("lensemble.artifact.structure.v1") + u64(2) + s(wmcp) + u64(int(round_index)) +
         s("" if parent == "none" else parent) + u64(len(group_list)) + b"".join(s(g) for g in group_list))
print(h.hexdigest())
