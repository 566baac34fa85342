"""Writes Hugging Face-style model folders whose weights are the same tensors in different
files, as the .bin to safetensors migration leaves them (issue 30, item 4):

  OUT/bin/         pytorch_model.bin (torch.save, zip format) and config.json
  OUT/legacy/      pytorch_model.bin in torch's legacy (pre-1.6) format
  OUT/sharded/     pytorch_model-0000{1,2}-of-00002.bin and pytorch_model.bin.index.json
  OUT/safetensors/ model.safetensors, written by hand (safetensors' layout) from the same tensors
  OUT/changed/     pytorch_model.bin with one element of one tensor changed

Usage: /usr/bin/python3 tests/torch/make_bin_twins.py OUT
"""
import json
import os
import struct
import sys
from collections import OrderedDict

import torch

out = sys.argv[1]
torch.manual_seed(30)
state = OrderedDict()
for layer in range(10):
    state[f"model.layers.{layer}.weight"] = torch.randn(8, 8)
    state[f"model.layers.{layer}.bias"] = torch.randn(8, dtype=torch.float16)
state["lm_head.weight"] = torch.randn(16, 8, dtype=torch.bfloat16)
config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}


def folder(name):
    path = os.path.join(out, name)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f)
    return path


torch.save(state, os.path.join(folder("bin"), "pytorch_model.bin"))
torch.save(state, os.path.join(folder("legacy"), "pytorch_model.bin"), _use_new_zipfile_serialization=False)
names = list(state)
shards = [names[: len(names) // 2], names[len(names) // 2 :]]
weight_map = {}
for i, shard in enumerate(shards):
    file = f"pytorch_model-{i + 1:05d}-of-{len(shards):05d}.bin"
    torch.save(OrderedDict((n, state[n]) for n in shard), os.path.join(folder("sharded"), file))
    weight_map.update({n: file for n in shard})
with open(os.path.join(out, "sharded", "pytorch_model.bin.index.json"), "w") as f:
    json.dump({"metadata": {"total_size": sum(t.numel() * t.element_size() for t in state.values())},
               "weight_map": weight_map}, f)

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
header, blobs, offset = {}, [], 0
for name, tensor in state.items():
    data = tensor.contiguous().view(torch.uint8).numpy().tobytes()
    header[name] = {"dtype": DTYPES[tensor.dtype], "shape": list(tensor.shape),
                    "data_offsets": [offset, offset + len(data)]}
    offset += len(data)
    blobs.append(data)
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
with open(os.path.join(folder("safetensors"), "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))

changed = OrderedDict((n, t.clone()) for n, t in state.items())
changed["model.layers.3.weight"][2, 5] += 0.25
torch.save(changed, os.path.join(folder("changed"), "pytorch_model.bin"))
