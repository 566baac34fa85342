#!/usr/bin/env python3
"""Writes ckpt-convert's cases with Debian's torch, and what torch itself says each holds:
for every file, the tensors (by path name) with their dtype token, shape and the SHA-256 of
their bytes as torch.load gives them back (the test wrote these files itself, so loading them
is safe), the exact aliases, and the values that are not tensors. Usage:
make_convert_cases.py OUT_DIR  (writes OUT_DIR/*.pt and OUT_DIR/expected.json)."""
import ctypes
import hashlib
import json
import os
import sys

import torch

TOKENS = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
          torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
          torch.bool: "BOOL"}


def digest(t):
    c = t.detach().contiguous().clone()
    return hashlib.sha256(ctypes.string_at(c.data_ptr(), c.numel() * c.element_size())).hexdigest()


def state_dict():
    torch.manual_seed(7)
    shared = torch.randn(10)
    sd = {
        "encoder.weight": torch.randn(4, 3),
        "encoder.half": torch.randn(5).half(),
        "encoder.bf16": torch.randn(6).bfloat16(),
        "encoder.double": torch.randn(2).double(),
        "predictor.steps": torch.arange(4, dtype=torch.int64).reshape(2, 2) + 1000,
        "predictor.mask": torch.tensor([True, False, True]),
        "predictor.scale": torch.tensor(2.5),
        "predictor.empty": torch.zeros(0),
        "predictor.bytes": torch.arange(5, dtype=torch.uint8),
        "head.first": shared[:4],  # two disjoint views of one storage
        "head.rest": shared[4:],
        "nét.ü": torch.randn(2, 2),  # a non-ASCII name
    }
    sd["tied.embedding"] = sd["encoder.weight"]  # tied weights: one tensor under two names
    return sd


def walk(obj, path=""):
    """(path, value) of every leaf: dict keys and list indices joined with '.'."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}.{i}" if path else str(i))
    else:
        yield path, obj


def describe(path):
    """What torch.load reads back: tensors, exact aliases (kept: the first name), the rest."""
    loaded = torch.load(path)
    tensors, aliases, others, seen = {}, {}, [], {}
    for name, value in sorted(walk(loaded), key=lambda item: item[0].encode()):
        if not isinstance(value, torch.Tensor):
            others.append(name)
            continue
        key = (value.untyped_storage().data_ptr() if hasattr(value, "untyped_storage") else value.storage().data_ptr(),
               value.storage_offset(), value.dtype, tuple(value.shape), tuple(value.stride()))
        if key in seen and value.numel() > 0:
            aliases[name] = seen[key]
            continue
        seen.setdefault(key, name)
        tensors[name] = {"dtype": TOKENS[value.dtype], "shape": list(value.shape), "sha256": digest(value)}
    return {"tensors": tensors, "aliases": aliases, "not_carried": sorted(others)}


def main():
    out = sys.argv[1]
    expected = {}

    def save(name, obj, legacy=False):
        path = os.path.join(out, name)
        torch.save(obj, path, _use_new_zipfile_serialization=not legacy)
        return path

    for name, legacy in (("zip.pt", False), ("legacy.pt", True)):
        expected[name] = describe(save(name, state_dict(), legacy))
    training = {"model": state_dict(), "optimizer": {"state": {}, "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999)}]},
                "epoch": 3, "note": "checkpoint at epoch 3"}
    expected["training.pt"] = describe(save("training.pt", training))
    # A Lensemble round (shared groups, float types, a tied weight) and what it must refuse.
    torch.manual_seed(11)
    lensemble = {"encoder.layers.0.weight": torch.randn(64, 32), "encoder.layers.0.bias": torch.randn(32).half(),
                 "predictor.proj.weight": torch.randn(16, 16).bfloat16(), "predictor.scale": torch.tensor(0.5)}
    lensemble["encoder.tied"] = lensemble["encoder.layers.0.weight"]
    save("round.pt", lensemble)
    save("actionhead.pt", {"encoder.w": torch.ones(2), "predictor.action_head.weight": torch.ones(2)})
    save("othergroup.pt", {"encoder.w": torch.ones(2), "decoder.w": torch.ones(2)})
    # Refusals: each names its tensor.
    base = torch.arange(12.0)
    save("noncontiguous.pt", {"ok": torch.ones(2), "transposed": torch.randn(3, 4).t()})
    save("overlap.pt", {"a": base[0:6], "b": base[4:10]})
    save("negbit.pt", {"negated": torch._neg_view(torch.randn(3))})
    # A Hugging Face model folder in sharded .bin form, as save_pretrained writes it: two shards
    # (the first with a tied pair), the index naming each tensor's shard, and a configuration.
    torch.manual_seed(13)
    folder = os.path.join(out, "sharded")
    os.makedirs(folder)
    shards = {
        "pytorch_model-00001-of-00002.bin": {"model.embed.weight": torch.randn(32, 8),
                                             "model.layers.0.weight": torch.randn(8, 8).half(),
                                             "model.layers.0.bias": torch.randn(8).bfloat16()},
        "pytorch_model-00002-of-00002.bin": {"model.layers.1.weight": torch.randn(8, 8),
                                             "model.layers.1.steps": torch.arange(6, dtype=torch.int64),
                                             "model.norm.weight": torch.ones(8)},
    }
    shards["pytorch_model-00001-of-00002.bin"]["lm_head.weight"] = shards["pytorch_model-00001-of-00002.bin"]["model.embed.weight"]
    weight_map, total = {}, 0
    for name, sd in shards.items():
        expected["sharded/" + name] = describe(save(os.path.join("sharded", name), sd))
        for key, t in sd.items():
            weight_map[key] = name
            if key != "lm_head.weight":
                total += t.numel() * t.element_size()
    with open(os.path.join(folder, "pytorch_model.bin.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "llama", "tie_word_embeddings": True}, f)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
