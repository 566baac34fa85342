#!/usr/bin/python3
"""Writes fuzz seeds the size real tools write (issue 46: small seeds hid a crash on every real
Flax checkpoint) into OUT/formats and OUT/pickle, each prefixed with the byte that picks its
reader in formats_fuzz.cpp and pickle_fuzz.cpp, and a GGUF file into OUT/gguf. Lengths sit past the readers' 64 KiB and 1 MiB
buffers and on their edges; values are structured so a mutation of them stays interesting.

  make_large_seeds.py OUT
"""
import io
import os
import pickle
import struct
import sys
import zipfile

import joblib
import msgpack
import numpy as np

out = sys.argv[1]
os.makedirs(os.path.join(out, "formats"), exist_ok=True)
os.makedirs(os.path.join(out, "pickle"), exist_ok=True)
os.makedirs(os.path.join(out, "gguf"), exist_ok=True)


def seed(folder, name, pick, data):
    with open(os.path.join(out, folder, name), "wb") as f:
        f.write(bytes([pick]) + data)


def flax(x):
    if isinstance(x, np.ndarray):
        return msgpack.ExtType(1, msgpack.packb((x.shape, x.dtype.name, x.tobytes()), use_bin_type=True))
    return x


kernel = np.arange(200 * 200, dtype=np.float32).reshape(200, 200)
seed("formats", "msgpack-large.bin", 4,
     msgpack.packb({"params": {"Dense_0": {"kernel": kernel, "bias": np.ones(200, np.float32)},
                               "Dense_1": {"kernel": np.zeros((300, 100), np.float32)}}},
                   default=flax, strict_types=True))
seed("formats", "msgpack-edge.bin", 4, msgpack.packb({"a": b"\0" * 65535, "b": 1, "c": b"\1" * 65536}))
buffer = io.BytesIO()
joblib.dump({"w": np.ones((160, 160)), "b": np.zeros(70000, np.int8)}, buffer)
seed("formats", "joblib-large.bin", 0, buffer.getvalue())
buffer = io.BytesIO()
joblib.dump({"w": np.ones((160, 160))}, buffer, compress=("zlib", 1))
seed("formats", "joblib-zlib-large.bin", 0, buffer.getvalue())
buffer = io.BytesIO()
np.savez(buffer, w=np.ones((160, 160)), b=np.arange(20000, dtype=np.int32))
seed("formats", "npz-large.bin", 1, buffer.getvalue())
try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    init = numpy_helper.from_array(np.ones((200, 200), np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["X", "w"], ["Y"])], "g",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 200])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 200])], [init])
    seed("formats", "onnx-large.bin", 6, helper.make_model(graph).SerializeToString())
except ImportError:
    sys.exit("make_large_seeds.py: python3-onnx is missing")

# A torch-shaped zip with a 300 KB data record and a 2,000-entry state dict; a plain pickle of
# a 1.5 MB bytes value (past the analyser's 1 MiB read buffer).
state = b"\x80\x02}(" + b"".join(b"X" + struct.pack("<I", 6) + b"w%05d" % i + b"K\x01" for i in range(2000)) + b"u."
archive = io.BytesIO()
with zipfile.ZipFile(archive, "w") as z:
    z.writestr("archive/data.pkl", state)
    z.writestr("archive/data/0", b"\0" * 300000)
    z.writestr("archive/version", "3\n")
seed("pickle", "zip-large.bin", 0, archive.getvalue())
seed("pickle", "pickle-large-bytes.bin", 2, pickle.dumps({"blob": b"\2" * 1_500_000, "n": 1}, protocol=4))


# GGUF v3: a 70,000-entry string array of metadata (past the reader's 64 KiB buffer) and one
# 200x200 F32 tensor, aligned to 32 bytes as ggml writes it.
def gguf_string(text):
    return struct.pack("<Q", len(text)) + text


metadata = [(b"general.architecture", 8, gguf_string(b"llama")),
            (b"tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 70000) + b"".join(gguf_string(b"t%d" % i)
                                                                                 for i in range(70000)))]
body = b"".join(gguf_string(key) + struct.pack("<I", kind) + value for key, kind, value in metadata)
info = gguf_string(b"blk.0.weight") + struct.pack("<I", 2) + struct.pack("<QQ", 200, 200) + struct.pack("<IQ", 0, 0)
head = b"GGUF" + struct.pack("<IQQ", 3, 1, len(metadata)) + body + info
head += b"\0" * (-len(head) % 32)
with open(os.path.join(out, "gguf", "large.gguf"), "wb") as f:
    f.write(head + kernel.tobytes())
