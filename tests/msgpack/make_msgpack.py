#!/usr/bin/python3
"""Writes Flax-layout msgpack checkpoints with Debian's python3-msgpack for
tests/rules/msgpack-invalid_test.cpp (formats.md section 8), into the directory given:

  flax_model.msgpack   a state dict as flax.serialization.to_bytes writes it: nested dicts of
                       ndarrays (ext 1), a numpy scalar (ext 3), a Python complex (ext 2), a
                       None, and one array chunked as flax's _chunk does above MAX_CHUNK_SIZE
  timestamp.msgpack    the same with a datetime, which msgpack-python writes as ext -1
  trailing.msgpack     flax_model.msgpack with bytes appended
  duplicate.msgpack    a map holding key 'w' twice (msgpack-python keeps the later)
  large.msgpack        arrays the size real Flax checkpoints hold: a 200x200 float32 kernel (a
                       160,000-byte bin, past the reader's 64 KiB buffer) followed by more arrays
  long_bin.msgpack     {'a': 65,535 zero bytes, 'b': 1}: a bin ending on the buffer's edge

Debian has no flax (nor jax): the ext hook below is flax/serialization.py's own layout
(_ndarray_to_bytes, _msgpack_ext_pack, _chunk), with MAX_CHUNK_SIZE lowered to 64 bytes so a
small array is chunked the way a 2^30-byte one is. Prints what msgpack.unpackb says of the
trailing and duplicate files, which the test compares with the audit's findings.
"""
import datetime
import sys

import msgpack
import numpy as np

out = sys.argv[1]
MAX_CHUNK_SIZE = 64  # flax: 2**30


def ndarray_to_bytes(arr):
    return msgpack.packb((arr.shape, arr.dtype.name, arr.tobytes("C")), use_bin_type=True)


def ext_pack(x):
    if isinstance(x, np.ndarray):
        return msgpack.ExtType(1, ndarray_to_bytes(x))
    if isinstance(x, np.generic):
        return msgpack.ExtType(3, ndarray_to_bytes(np.asarray(x)))
    if isinstance(x, complex):
        return msgpack.ExtType(2, msgpack.packb((x.real, x.imag)))
    if isinstance(x, datetime.datetime):
        return msgpack.Timestamp.from_datetime(x)
    return x


def tuple_to_dict(xs):
    return {str(i): x for i, x in enumerate(xs)}


def chunk(arr):
    chunksize = max(1, int(MAX_CHUNK_SIZE / arr.dtype.itemsize))
    flat = arr.reshape(-1)
    chunks = [flat[i:i + chunksize] for i in range(0, flat.size, chunksize)]
    return {"__msgpack_chunked_array__": True, "shape": tuple_to_dict(arr.shape), "chunks": tuple_to_dict(chunks)}


def to_bytes(state):
    return msgpack.packb(state, default=ext_pack, strict_types=True)


state = {
    "params": {
        "Dense_0": {"kernel": np.arange(12, dtype=np.float32).reshape(3, 4), "bias": np.zeros(4, dtype=np.float32)},
        "Embed_0": {"embedding": chunk(np.ones((5, 8), dtype=np.float16))},
    },
    "batch_stats": {"mean": np.zeros(2, dtype=np.float64)},
    "step": np.int32(7),
    "scale": complex(1.0, -2.0),
    "note": None,
}
clean = to_bytes(state)
with open(f"{out}/flax_model.msgpack", "wb") as f:
    f.write(clean)
with open(f"{out}/timestamp.msgpack", "wb") as f:
    f.write(to_bytes(dict(state, saved=datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc))))
with open(f"{out}/trailing.msgpack", "wb") as f:
    f.write(clean + b"\x91\xc0")
try:
    msgpack.unpackb(clean + b"\x91\xc0", raw=False)
    print("trailing: read")
except msgpack.ExtraData:
    print("trailing: ExtraData")
duplicate = b"\x82" + msgpack.packb("w") + msgpack.packb(1) + msgpack.packb("w") + msgpack.packb(2)
with open(f"{out}/duplicate.msgpack", "wb") as f:
    f.write(duplicate)
print("duplicate: w =", msgpack.unpackb(duplicate, raw=False)["w"])
large = {"params": {"Dense_0": {"kernel": np.arange(40000, dtype=np.float32).reshape(200, 200),
                                "bias": np.ones(200, dtype=np.float32)},
                    "Dense_1": {"kernel": np.zeros((300, 100), dtype=np.float32)}}}
with open(f"{out}/large.msgpack", "wb") as f:
    f.write(to_bytes(large))
with open(f"{out}/long_bin.msgpack", "wb") as f:
    f.write(msgpack.packb({"a": b"\0" * 65535, "b": 1}, use_bin_type=True))
