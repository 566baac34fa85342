#!/usr/bin/env python3
"""torch.jit.save of a traced Linear(2, 3), as OUT_DIR/traced.pt, for the torchscript rules'
tests (tests/rules/torchscript-code_test.cpp). Usage: make_traced_module.py OUT_DIR"""
import os
import sys

import torch

if __name__ == "__main__":
    module = torch.jit.trace(torch.nn.Linear(2, 3), torch.zeros(1, 2))
    torch.jit.save(module, os.path.join(sys.argv[1], "traced.pt"))
