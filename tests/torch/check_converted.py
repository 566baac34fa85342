#!/usr/bin/env python3
"""Checks a ckpt-convert output against what torch says the input held, independently of the
tools: the safetensors layout parsed with the standard library, every tensor's bytes hashed
and compared with torch.load's, the aliases in __metadata__, and the header rebuilt from the
expected tensors exactly as the reference serializer lays it out (dtype descending in the
safetensors Dtype enum's order, then name; compact JSON; __metadata__ first with format pt
then the aliases; spaces to a multiple of 8) and compared byte for byte.
Usage: check_converted.py EXPECTED.json CASE OUTPUT.safetensors"""
import hashlib
import json
import struct
import sys

ORDER = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16", "U16", "F16",
         "BF16", "I32", "U32", "F32", "C64", "F64", "I64", "U64"]
SIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4,
        "F64": 8, "I64": 8, "U64": 8}

expected = json.load(open(sys.argv[1]))[sys.argv[2]]
data = open(sys.argv[3], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
body = data[8 + n:]
meta = header.pop("__metadata__")
assert meta.get("format") == "pt", meta
assert {k: v for k, v in meta.items() if k != "format"} == expected["aliases"], (meta, expected["aliases"])
assert set(header) == set(expected["tensors"]), (sorted(header), sorted(expected["tensors"]))
for name, info in header.items():
    want = expected["tensors"][name]
    assert info["dtype"] == want["dtype"] and info["shape"] == want["shape"], (name, info, want)
    begin, end = info["data_offsets"]
    assert hashlib.sha256(body[begin:end]).hexdigest() == want["sha256"], name

names = sorted(expected["tensors"], key=lambda k: (-ORDER.index(expected["tensors"][k]["dtype"]), k.encode()))
parts, offset = ['"__metadata__":' + json.dumps(dict([("format", "pt")] + sorted(expected["aliases"].items(),
                 key=lambda kv: kv[0].encode())), separators=(",", ":"), ensure_ascii=False)], 0
for name in names:
    t = expected["tensors"][name]
    size = SIZE[t["dtype"]]
    for d in t["shape"]:
        size *= d
    parts.append(json.dumps(name, ensure_ascii=False) + ":" + json.dumps(
        {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [offset, offset + size]}, separators=(",", ":")))
    offset += size
text = ("{" + ",".join(parts) + "}").encode()
text += b" " * ((8 - len(text) % 8) % 8)
assert data[8:8 + n] == text, (data[8:8 + n], text)
assert len(body) == offset
print("ok", len(names), "tensors")
