#!/usr/bin/python3
"""Writes checkpoints shaped as real tools write them (issue 46 item 3), with Debian's numpy,
joblib, msgpack, onnx, h5py and torch, and what each format's own loader lists of them, for
tests/real_shapes_test.cpp:

  wide.npz             numpy.savez of 400 arrays, a few of megabytes
  wide.joblib          joblib.dump of a dict of 300 arrays (one of 8 MB), and .zlib compressed
  flax_model.msgpack   a Flax state dict of 200 layers (ext 1 arrays, one of 4 MB) and one
                       array chunked as flax's _chunk does (MAX_CHUNK_SIZE lowered to 1 MiB)
  model.onnx           an MLP of 120 initializers (one of 4 MB), and in external/ the same
                       model saved by onnx with every initializer in one external data file
  tf_model.h5          an HDF5 file of 150 layers' weights laid out as Keras 2 writes them
  model.nemo           a NeMo archive with a Conformer-CTC config of the size NeMo writes and
                       a torch.save state dict of 300 tensors

  make_real_shapes.py OUT

listed.json maps each file to the tensor names its loader sees, sorted.
"""
import json
import os
import sys
import tarfile
import tempfile

import h5py
import joblib
import msgpack
import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(46)
listed = {}

npz = {"layer%03d.weight" % i: rng.standard_normal((64, 64) if i % 50 else (1024, 256), dtype=np.float32)
       for i in range(400)}
np.savez(os.path.join(out, "wide.npz"), **npz)
with np.load(os.path.join(out, "wide.npz")) as f:
    listed["wide.npz"] = sorted(f.files)

arrays = {"blocks.%d.w" % i: rng.standard_normal((32, 32), dtype=np.float32) for i in range(299)}
arrays["embedding"] = rng.standard_normal((2048, 1024), dtype=np.float32)
joblib.dump(arrays, os.path.join(out, "wide.joblib"))
joblib.dump(arrays, os.path.join(out, "wide.zlib"), compress=("zlib", 1))
listed["wide.joblib"] = listed["wide.zlib"] = sorted(joblib.load(os.path.join(out, "wide.joblib")))

MAX_CHUNK_SIZE = 1 << 20


def ext_pack(x):
    if isinstance(x, np.ndarray):
        return msgpack.ExtType(1, msgpack.packb((x.shape, x.dtype.name, x.tobytes("C")), use_bin_type=True))
    return x


def chunk(arr):
    flat = arr.reshape(-1)
    size = max(1, MAX_CHUNK_SIZE // arr.dtype.itemsize)
    chunks = [flat[i:i + size] for i in range(0, flat.size, size)]
    return {"__msgpack_chunked_array__": True, "shape": {str(i): d for i, d in enumerate(arr.shape)},
            "chunks": {str(i): c for i, c in enumerate(chunks)}}


params = {"layer_%d" % i: {"kernel": rng.standard_normal((64, 64), dtype=np.float32),
                           "bias": np.zeros(64, dtype=np.float32)} for i in range(200)}
params["embed"] = {"embedding": rng.standard_normal((1024, 1024), dtype=np.float32)}
params["lm_head"] = {"kernel": chunk(rng.standard_normal((1024, 768), dtype=np.float32))}
with open(os.path.join(out, "flax_model.msgpack"), "wb") as f:
    f.write(msgpack.packb({"params": params}, default=ext_pack, strict_types=True))
names = []
for layer, leaves in params.items():
    names += ["params.%s.%s" % (layer, leaf) for leaf in leaves]
listed["flax_model.msgpack"] = sorted(names)

inits = [numpy_helper.from_array(rng.standard_normal((256, 256), dtype=np.float32), "fc%d.weight" % i)
         for i in range(59)]
inits += [numpy_helper.from_array(np.zeros(256, dtype=np.float32), "fc%d.bias" % i) for i in range(60)]
inits.append(numpy_helper.from_array(rng.standard_normal((1024, 1024), dtype=np.float32), "fc59.weight"))
nodes, previous = [], "X"
for i in range(60):
    shape_in = "fc%d.weight" % i
    nodes.append(helper.make_node("MatMul", [previous, shape_in], ["mm%d" % i]))
    nodes.append(helper.make_node("Add", ["mm%d" % i, "fc%d.bias" % i], ["h%d" % i]))
    previous = "h%d" % i
graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 256])],
                          [helper.make_tensor_value_info(previous, TensorProto.FLOAT, None)], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, os.path.join(out, "model.onnx"))
os.makedirs(os.path.join(out, "external"))
onnx.save_model(model, os.path.join(out, "external", "model.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=0)
listed["model.onnx"] = sorted(t.name for t in onnx.load(os.path.join(out, "model.onnx")).graph.initializer)

with h5py.File(os.path.join(out, "tf_model.h5"), "w") as f:
    f.attrs["keras_version"] = "2.13.1"
    f.attrs["backend"] = "tensorflow"
    for i in range(150):
        group = f.create_group("model_weights/dense_%d/dense_%d" % (i, i))
        group.create_dataset("kernel:0", data=rng.standard_normal((128, 128) if i else (1024, 512), dtype=np.float32))
        group.create_dataset("bias:0", data=np.zeros(128 if i else 512, dtype=np.float32))
h5 = []
with h5py.File(os.path.join(out, "tf_model.h5"), "r") as f:
    f.visititems(lambda name, obj: h5.append(name) if isinstance(obj, h5py.Dataset) else None)
listed["tf_model.h5"] = sorted(h5)

CONFIG = """target: nemo.collections.asr.models.ctc_bpe_models.EncDecCTCModelBPE
sample_rate: 16000
log_prediction: true
ctc_reduction: mean_batch
skip_nan_grad: false
train_ds:
  manifest_filepath: null
  sample_rate: 16000
  batch_size: 16
  shuffle: true
  num_workers: 8
  pin_memory: true
  max_duration: 20
  min_duration: 0.1
  is_tarred: false
  tarred_audio_filepaths: null
  shuffle_n: 2048
  bucketing_strategy: synced_randomized
  bucketing_batch_size: null
validation_ds:
  manifest_filepath: null
  sample_rate: 16000
  batch_size: 16
  shuffle: false
  use_start_end_token: false
  num_workers: 8
  pin_memory: true
tokenizer:
  dir: null
  type: bpe
  model_path: nemo:9f1c_tokenizer.model
  vocab_path: nemo:7a2b_vocab.txt
preprocessor:
  _target_: nemo.collections.asr.modules.AudioToMelSpectrogramPreprocessor
  sample_rate: 16000
  normalize: per_feature
  window_size: 0.025
  window_stride: 0.01
  window: hann
  features: 80
  n_fft: 512
  log: true
  frame_splicing: 1
  dither: 1.0e-05
  pad_to: 0
  pad_value: 0.0
spec_augment:
  _target_: nemo.collections.asr.modules.SpectrogramAugmentation
  freq_masks: 2
  time_masks: 10
  freq_width: 27
  time_width: 0.05
encoder:
  _target_: nemo.collections.asr.modules.ConformerEncoder
  feat_in: 80
  feat_out: -1
  n_layers: 18
  d_model: 512
  subsampling: striding
  subsampling_factor: 4
  subsampling_conv_channels: 512
  causal_downsampling: false
  ff_expansion_factor: 4
  self_attention_model: rel_pos
  n_heads: 8
  att_context_size:
  - -1
  - -1
  xscaling: true
  untie_biases: true
  pos_emb_max_len: 5000
  conv_kernel_size: 31
  conv_norm_type: batch_norm
  dropout: 0.1
  dropout_pre_encoder: 0.1
  dropout_emb: 0.0
  dropout_att: 0.1
decoder:
  _target_: nemo.collections.asr.modules.ConvASRDecoder
  feat_in: null
  num_classes: -1
  vocabulary: []
optim:
  name: adamw
  lr: 2.0
  betas:
  - 0.9
  - 0.98
  weight_decay: 0.001
  sched:
    name: NoamAnnealing
    d_model: 512
    warmup_steps: 10000
    warmup_ratio: null
    min_lr: 1.0e-06
target_module: nemo.collections.asr.models.ctc_bpe_models.EncDecCTCModelBPE
nemo_version: 1.20.0
"""
state = {"encoder.layers.%d.%s" % (i, part): torch.randn(64, 64)
         for i in range(100) for part in ("feed_forward.weight", "self_attn.linear_q.weight", "norm.weight")}
with tempfile.TemporaryDirectory() as src:
    with open(os.path.join(src, "model_config.yaml"), "w") as f:
        f.write(CONFIG)
    torch.save(state, os.path.join(src, "model_weights.ckpt"))
    with open(os.path.join(src, "9f1c_tokenizer.model"), "wb") as f:
        f.write(bytes(range(256)) * 64)
    with open(os.path.join(src, "7a2b_vocab.txt"), "w") as f:
        f.write("\n".join("tok%d" % i for i in range(1024)))
    with tarfile.open(os.path.join(out, "model.nemo"), "w:") as tar:
        tar.add(src, arcname=".")
listed["model.nemo"] = sorted(state)

with open(os.path.join(out, "listed.json"), "w") as f:
    json.dump(listed, f)
