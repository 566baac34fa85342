#!/usr/bin/python3
"""The same per-tensor statistics as ckpt-diff, computed with numpy from np.memmap views.

Used by bench/diff_vs_numpy to time ckpt-diff against numpy and to cross-check its figures.
Needs Debian's python3-numpy (run with /usr/bin/python3). Prints JSON: {name: stats}.
Chunked (16M elements) so numpy is not penalised by memory; bytes are compared first,
as ckpt-diff does, and only changed tensors get statistics.
"""
import json
import os
import struct
import sys

import numpy as np

CHUNK = 1 << 24
DTYPES = {"F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2)}


def tensors(artifact):
    out = {}
    for name in sorted(os.listdir(artifact)):
        if not name.endswith(".safetensors"):
            continue
        path = os.path.join(artifact, name)
        with open(path, "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
        for key, entry in header.items():
            if key == "__metadata__":
                continue
            begin, end = entry["data_offsets"]
            out[key] = (path, 8 + n + begin, end - begin, entry["dtype"], entry["shape"])
    return out


def view(path, offset, length, dtype):
    np_dtype, size = DTYPES[dtype]
    return np.memmap(path, dtype=np_dtype, mode="r", offset=offset, shape=(length // size,))


def widen(chunk, dtype):
    if dtype == "BF16":
        return (chunk.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return chunk.astype(np.float64)


def stats(a, b, dtype):
    changed = nan_new = inf_new = 0
    max_abs = sq_diff = sq_a = 0.0
    bits = np.uint32 if dtype == "F32" else np.uint16
    for i in range(0, a.shape[0], CHUNK):
        ca, cb = a[i:i + CHUNK], b[i:i + CHUNK]
        differ = ca.view(bits) != cb.view(bits)
        changed += int(differ.sum())
        x, y = widen(ca, dtype), widen(cb, dtype)
        fx, fy = np.isfinite(x), np.isfinite(y)
        sq_a += float(np.square(x[fx]).sum())
        nan_new += int((fx & np.isnan(y)).sum())
        inf_new += int((fx & np.isinf(y)).sum())
        both = differ & fx & fy
        d = y[both] - x[both]
        if d.size:
            max_abs = max(max_abs, float(np.abs(d).max()))
            sq_diff += float(np.square(d).sum())
    l2 = sq_diff ** 0.5
    return {"numel": int(a.shape[0]), "changed": changed, "max_abs": max_abs, "l2": l2,
            "rel_l2": l2 / sq_a ** 0.5 if sq_a else None, "nan_appeared": nan_new, "inf_appeared": inf_new}


def main():
    ta, tb = tensors(sys.argv[1]), tensors(sys.argv[2])
    out = {}
    for name in sorted(set(ta) & set(tb)):
        pa, oa, la, da, sa = ta[name]
        pb, ob, lb, db, sb = tb[name]
        if da != db or sa != sb:
            continue
        a, b = view(pa, oa, la, da), view(pb, ob, lb, db)
        if np.array_equal(a.view(np.uint8), b.view(np.uint8)):
            continue
        out[name] = stats(a, b, da)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
