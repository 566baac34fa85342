#!/usr/bin/env python3
"""Writes real torch.save checkpoints for tests/torch_checkpoint_test.cpp, with what torch
itself says each holds: for every file, the tensors reachable in the saved object (path name,
safetensors dtype token, shape), taken from the objects in memory before saving. Nothing is
ever loaded back. Usage: make_checkpoints.py OUT_DIR  (writes OUT_DIR/expected.json)."""
import ctypes
import hashlib
import json
import os
import sys

import torch

TOKENS = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
          torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
          torch.bool: "BOOL", torch.complex64: "C64"}


def digest(t):
    """SHA-256 of the tensor's elements in row-major order, as the file must hold them."""
    c = t.detach().contiguous().clone()
    return hashlib.sha256(ctypes.string_at(c.data_ptr(), c.numel() * c.element_size())).hexdigest()


def tensors(obj, path="", seen=None):
    """Every path to a tensor: dict keys and list indices joined with '.' (inputs.md 6)."""
    seen = seen if seen is not None else set()
    if isinstance(obj, torch.Tensor):
        yield path, obj
        return
    if id(obj) in seen:
        return
    if isinstance(obj, dict):
        items = [(str(k), v) for k, v in obj.items()]
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    else:
        return
    seen = seen | {id(obj)}
    for key, value in items:
        yield from tensors(value, key if path == "" else path + "." + key, seen)


def model():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    m.add_module("embed", torch.nn.Embedding(5, 2))
    return m


def tied():
    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(10, 4)
            self.head = torch.nn.Linear(4, 10, bias=False)
            self.head.weight = self.embed.weight
    return Tied().state_dict()


def dtypes():
    return {"f16": torch.randn(3).half(), "bf16": torch.randn(2, 2).bfloat16(), "i64": torch.arange(5),
            "bool": torch.tensor([True, False, True]), "scalar": torch.tensor(3.5), "empty": torch.zeros(0, 4),
            "i8": torch.tensor([-1, 2], dtype=torch.int8), "u8": torch.tensor([1, 2, 3], dtype=torch.uint8),
            "f64": torch.tensor([1.0], dtype=torch.float64), "i32": torch.tensor([7], dtype=torch.int32)}


def views():
    base = torch.arange(12.0)
    return {"whole": base, "slice": base[2:6], "view": base.view(3, 4), "strided": base[::2],
            "transposed": base.view(3, 4).t(), "row": base.view(3, 4)[1]}


def training():
    m = model()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    loss = m[3](m[2](m[1](m[0](torch.randn(4, 4))))).sum()
    loss.backward()
    opt.step()
    return {"model": m.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "lr": 1e-3,
            "history": [0.5, 0.25], "config": {"name": "tiny", "layers": (4, 3, 2)}}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = [
        ("state_dict_zip.pt", model().state_dict(), {}),
        ("state_dict_legacy.pt", model().state_dict(), {"_use_new_zipfile_serialization": False}),
        ("state_dict_protocol4.pt", model().state_dict(), {"pickle_protocol": 4}),
        ("dtypes_zip.pt", dtypes(), {}),
        ("dtypes_legacy.pt", dtypes(), {"_use_new_zipfile_serialization": False}),
        ("views_zip.pt", views(), {}),
        ("views_legacy.pt", views(), {"_use_new_zipfile_serialization": False}),
        ("tied_zip.pt", tied(), {}),
        ("training_zip.pt", training(), {}),
        ("training_legacy.pt", training(), {"_use_new_zipfile_serialization": False}),
    ]
    expected = {}
    for name, obj, options in cases:
        torch.save(obj, os.path.join(out, name), **options)
        expected[name] = sorted(
            [{"name": path, "dtype": TOKENS[t.dtype], "shape": list(t.shape), "sha256": digest(t)}
             for path, t in tensors(obj)],
            key=lambda e: e["name"])
    # A whole module: its classes are imported and called by a load, never allowlisted.
    torch.save(model(), os.path.join(out, "whole_module.pt"))
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"torch": torch.__version__, "files": expected}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
