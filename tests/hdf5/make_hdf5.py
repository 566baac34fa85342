#!/usr/bin/env python3
"""Writes the HDF5 and Keras files the HDF5 and Keras tests read (tests/rules/hdf5-invalid_test.cpp),
with Debian's h5py and numpy, laid out as their writers lay them out:

    /usr/bin/python3 tests/hdf5/make_hdf5.py OUTDIR MARKER

- keras2_model.h5: keras.models.save_model(..., save_format="h5") of Keras 2: root attributes
  model_config and training_config (JSON as bytes), keras_version, backend; model_weights/<layer>
  groups with layer_names / weight_names attributes.
- tf_model.h5: what transformers' TFPreTrainedModel.save_pretrained writes (no model_config).
- userblock.h5: a 1024-byte user block before the superblock; int64, bool, float16 datasets.
- external_link.h5, external_storage.h5, virtual.h5, plugin_filter.h5: a dataset or link that
  reaches outside the file, or a filter libhdf5 would load as a plugin.
- lambda_model.h5: a Keras 2 config with a Lambda layer whose marshalled bytecode would create
  MARKER if a loader ran it (CVE-2025-9905: H5 loading ignores safe_mode).
- *.keras: Keras 3 .keras zips as saving_lib writes them (metadata.json, config.json, deflated;
  model.weights.h5 in H5IOStore's layout written by h5py): dense.keras, functional.keras,
  npz_weights.keras, and the hostile cve_2025_1550.keras (module os), cve_2025_8747.keras
  (keras.utils.get_file), lambda.keras (marshalled bytecode creating MARKER), tfsm.keras.
Keras itself is not in Debian; the configs are what Keras 3.6 writes for these models.
"""
import base64
import io
import json
import marshal
import sys
import zipfile

import h5py
import numpy as np

out, marker = sys.argv[1], sys.argv[2]


def dense_layer_config(name="dense", units=2, activation="relu"):
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": None}
    return {"module": "keras.layers", "class_name": "Dense", "config": {
        "name": name, "trainable": True, "dtype": policy, "units": units, "activation": activation, "use_bias": True,
        "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform",
                               "config": {"seed": None}, "registered_name": None},
        "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {},
                             "registered_name": None},
        "kernel_regularizer": None, "bias_regularizer": None, "kernel_constraint": None, "bias_constraint": None},
        "registered_name": None, "build_config": {"input_shape": [None, 3]}}


def sequential(*extra):
    layers = [{"module": "keras.layers", "class_name": "InputLayer",
               "config": {"batch_shape": [None, 3], "dtype": "float32", "sparse": False, "name": "input_layer"},
               "registered_name": None}, dense_layer_config()] + list(extra)
    return {"module": "keras", "class_name": "Sequential",
            "config": {"name": "sequential", "trainable": True, "layers": layers, "build_input_shape": [None, 3]},
            "registered_name": None, "build_config": {"input_shape": [None, 3]},
            "compile_config": {"optimizer": {"module": "keras.optimizers", "class_name": "Adam",
                                             "config": {"name": "adam", "learning_rate": 0.001},
                                             "registered_name": None},
                               "loss": {"module": "keras.losses", "class_name": "function",
                                        "config": "mean_squared_error", "registered_name": "mean_squared_error"},
                               "metrics": ["mae"], "run_eagerly": False, "steps_per_execution": 1,
                               "jit_compile": False}}


def marshalled_payload():
    code = compile("lambda x: __import__('os').system('touch %s') or x" % marker, "<lambda>", "eval")
    fn_code = next(c for c in code.co_consts if hasattr(c, "co_code"))
    return base64.b64encode(marshal.dumps(fn_code)).decode("ascii")


def weights_h5():
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        f.create_group("vars")
        f.create_dataset("layers/dense/vars/0", data=np.zeros((3, 2), np.float32))
        f.create_dataset("layers/dense/vars/1", data=np.zeros((2,), np.float32))
        f.create_dataset("optimizer/vars/0", data=np.int64(0))
        f.create_dataset("optimizer/vars/1", data=np.float32(0.001))
    return buf.getvalue()


def keras_zip(name, config, weights=None, npz=False):
    with zipfile.ZipFile("%s/%s" % (out, name), "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "3.6.0", "date_saved": "2024-10-01@12:00:00"}))
        z.writestr("config.json", json.dumps(config))
        if npz:
            buf = io.BytesIO()
            np.savez(buf, kernel=np.zeros((3, 2), np.float32), bias=np.zeros((2,), np.float32))
            z.writestr("model.weights.npz", buf.getvalue())
        else:
            z.writestr("model.weights.h5", weights if weights is not None else weights_h5())


def keras2_h5(name, model_config):
    with h5py.File("%s/%s" % (out, name), "w") as f:
        f.attrs["model_config"] = json.dumps(model_config).encode("utf8")
        f.attrs["training_config"] = json.dumps({"loss": "mse", "optimizer_config": {
            "class_name": "Adam", "config": {"learning_rate": 0.001}}}).encode("utf8")
        f.attrs["keras_version"] = b"2.13.1"
        f.attrs["backend"] = b"tensorflow"
        weights = f.create_group("model_weights")
        weights.attrs["layer_names"] = [b"dense"]
        layer = weights.create_group("dense")
        layer.attrs["weight_names"] = [b"dense/kernel:0", b"dense/bias:0"]
        layer.create_dataset("dense/kernel:0", data=np.zeros((3, 2), np.float32))
        layer.create_dataset("dense/bias:0", data=np.zeros((2,), np.float32))


keras2 = {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3], "dtype": "float32", "name": "in"}},
    {"class_name": "Dense", "config": {"name": "dense", "units": 2, "activation": "relu",
                                       "kernel_initializer": {"class_name": "GlorotUniform",
                                                              "config": {"seed": None}}}}]}}
keras2_h5("keras2_model.h5", keras2)
lambda_config = json.loads(json.dumps(keras2))
lambda_config["config"]["layers"].append({"class_name": "Lambda", "config": {
    "name": "lambda", "function": [marshalled_payload(), None, None], "function_type": "lambda",
    "module": "__main__", "output_shape": None, "arguments": {}}})
keras2_h5("lambda_model.h5", lambda_config)

with h5py.File(out + "/tf_model.h5", "w") as f:
    f.attrs["layer_names"] = [b"tf_bert_model"]
    g = f.create_group("tf_bert_model")
    g.attrs["weight_names"] = [b"tf_bert_model/bert/embeddings/word_embeddings/weight:0",
                               b"tf_bert_model/bert/embeddings/LayerNorm/gamma:0"]
    g.create_dataset("tf_bert_model/bert/embeddings/word_embeddings/weight:0", data=np.zeros((10, 4), np.float32))
    g.create_dataset("tf_bert_model/bert/embeddings/LayerNorm/gamma:0", data=np.ones((4,), np.float32))

with h5py.File(out + "/userblock.h5", "w", userblock_size=1024) as f:
    f.create_dataset("a", data=np.arange(6, dtype=np.int64).reshape(2, 3))
    f.create_dataset("mask", data=np.array([True, False, True, True]))
    f.create_dataset("h", data=np.zeros((2,), np.float16), compression="gzip", shuffle=True, fletcher32=True)
    f.create_dataset("name", data="a string")
    f.create_dataset("pair", data=np.zeros((2,), dtype=[("x", "<f4"), ("y", "<i4")]))

with h5py.File(out + "/external_link.h5", "w") as f:
    f.create_dataset("w", data=np.zeros((2,), np.float32))
    f["passwd"] = h5py.ExternalLink("/etc/passwd", "/")
with h5py.File(out + "/external_storage.h5", "w") as f:
    f.create_dataset("w", shape=(4,), dtype="<f4", external=[("raw.bin", 0, 16)])
with h5py.File(out + "/source.h5", "w") as f:
    f.create_dataset("data", data=np.zeros((4,), np.float32))
with h5py.File(out + "/virtual.h5", "w") as f:
    layout = h5py.VirtualLayout(shape=(4,), dtype="<f4")
    layout[:] = h5py.VirtualSource(out + "/source.h5", "data", shape=(4,))
    f.create_virtual_dataset("v", layout)
with h5py.File(out + "/plugin_filter.h5", "w") as f:
    f.create_dataset("w", data=np.zeros((16,), np.float32), chunks=(16,), compression=32001,
                     allow_unknown_filter=True)

keras_zip("dense.keras", sequential())
functional = {"module": "keras.src.models.functional", "class_name": "Functional", "config": {
    "name": "functional", "trainable": True, "layers": [
        {"module": "keras.layers", "class_name": "InputLayer",
         "config": {"batch_shape": [None, 3], "dtype": "float32", "sparse": False, "name": "input_layer"},
         "registered_name": None, "name": "input_layer", "inbound_nodes": []},
        dict(dense_layer_config(activation={"module": "keras.activations", "class_name": "function",
                                            "config": "gelu", "registered_name": "gelu"}),
             name="dense", inbound_nodes=[{"args": [{"class_name": "__keras_tensor__", "config": {
                 "shape": [None, 3], "dtype": "float32", "keras_history": ["input_layer", 0, 0]}}],
                 "kwargs": {}}])],
    "input_layers": [["input_layer", 0, 0]], "output_layers": [["dense", 0, 0]]},
    "registered_name": "Functional", "build_config": {"input_shape": None}}
keras_zip("functional.keras", functional)
keras_zip("npz_weights.keras", sequential(), npz=True)
keras_zip("cve_2025_1550.keras", sequential({"module": "keras.layers", "class_name": "Activation", "config": {
    "name": "act", "activation": {"module": "os", "class_name": "function", "config": "system",
                                  "registered_name": "function"}}, "registered_name": None}))
keras_zip("cve_2025_8747.keras", sequential({"module": "keras.layers", "class_name": "Activation", "config": {
    "name": "act", "activation": {"module": "keras.utils", "class_name": "function", "config": "get_file",
                                  "registered_name": "get_file"}}, "registered_name": None}))
keras_zip("lambda.keras", sequential({"module": "keras.layers", "class_name": "Lambda", "config": {
    "name": "lambda", "function": {"class_name": "__lambda__", "config": {"value": [marshalled_payload(), None,
                                                                                   None]}},
    "arguments": {}}, "registered_name": None}))
keras_zip("tfsm.keras", sequential({"module": "keras.layers", "class_name": "TFSMLayer", "config": {
    "name": "tfsm", "filepath": "/tmp/saved_model", "call_endpoint": "serve"}, "registered_name": None}))
