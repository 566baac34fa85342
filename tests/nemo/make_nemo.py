#!/usr/bin/python3
"""Writes .nemo archives as NeMo's SaveRestoreConnector does (tarfile.open(path, "w:"),
arcname "."), with Debian's python3-torch writing model_weights.ckpt, for
tests/rules/nemo-target-unsafe_test.cpp (formats.md section 9), into the directory given:

  clean.nemo      model_config.yaml with allowed targets, a torch.save state dict, a tokenizer
                  artifact named <hash>_<name> and one in a sub-folder
  target.nemo     a config whose optimizer _target_ is os.system
  laughs.nemo     a config whose anchors and aliases expand (billion laughs)
  tagged.nemo     a config with a !!python/object/apply tag
  payload.nemo    a model_weights.ckpt whose pickle calls os.system('touch MARKER')
  gzip.nemo       clean.nemo as older NeMo releases wrote it (w:gz)
  deep.nemo       clean.nemo with a member nine folders deep
  artifact.nemo   clean.nemo with a tokenizer artifact that is a payload pickle
  cls.nemo        a Hydra 0.x config: `cls: os.system` with `params` (NeMo's _convert_config
                  makes it a _target_ before instantiating)
  cls_allowed.nemo  the same shape naming a NeMo class (a near miss)

Debian has no NeMo: the layout is save_restore_connector.py's. Nothing here is ever loaded.
"""
import os
import pickle
import sys
import tarfile
import tempfile

import torch

out, marker = sys.argv[1], sys.argv[2]
CONFIG = """target: nemo.collections.asr.models.EncDecCTCModel
sample_rate: 16000
encoder:
  _target_: nemo.collections.asr.modules.ConformerEncoder
  n_layers: 2
optim:
  name: adamw
  sched:
    _target_: torch.optim.lr_scheduler.CosineAnnealingLR
tokenizer:
  dir: null
  model: nemo:1a2b_tokenizer.model
"""


class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + marker,))


def write(name, config=CONFIG, weights=None, mode="w:", extra=None, artifact=None):
    with tempfile.TemporaryDirectory() as src:
        with open(os.path.join(src, "model_config.yaml"), "w") as f:
            f.write(config)
        path = os.path.join(src, "model_weights.ckpt")
        if weights is None:
            torch.save({"encoder.weight": torch.ones(2, 3), "decoder.bias": torch.zeros(4)}, path)
        else:
            with open(path, "wb") as f:
                f.write(weights)
        with open(os.path.join(src, "1a2b_tokenizer.model"), "wb") as f:
            f.write(b"\x0a\x03abc")
        os.makedirs(os.path.join(src, "vocab"))
        with open(os.path.join(src, "vocab", "3c4d_vocab.txt"), "w") as f:
            f.write("a\nb\n")
        if artifact:
            with open(os.path.join(src, "5e6f_tokenizer.pkl"), "wb") as f:
                f.write(artifact)
        if extra:
            os.makedirs(os.path.join(src, os.path.dirname(extra)))
            with open(os.path.join(src, extra), "w") as f:
                f.write("deep")
        with tarfile.open(os.path.join(out, name), mode) as tar:
            tar.add(src, arcname=".")


write("clean.nemo")
write("target.nemo", CONFIG.replace("torch.optim.lr_scheduler.CosineAnnealingLR", "os.system"))
laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
for i in range(ord("b"), ord("j")):
    prev = chr(i - 1)
    laughs += f"{chr(i)}: &{chr(i)} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
write("laughs.nemo", CONFIG + laughs)
write("tagged.nemo", CONFIG + "cmd: !!python/object/apply:os.system ['touch " + marker + "']\n")
write("payload.nemo", weights=pickle.dumps({"encoder.weight": Payload()}, protocol=2))
write("gzip.nemo", mode="w:gz")
write("deep.nemo", extra="a/b/c/d/e/f/g/h/i/notes.txt")
write("artifact.nemo", artifact=pickle.dumps(Payload(), protocol=2))
write("cls.nemo", CONFIG + "loss:\n  cls: os.system\n  params:\n    command: touch " + marker + "\n")
write("cls_allowed.nemo", CONFIG + "loss:\n  cls: nemo.collections.asr.losses.CTCLoss\n  params:\n    num_classes: 28\n")
