#!/usr/bin/env python3
"""A torch.save checkpoint whose first data record spans many read windows (12 MiB), as
OUT_DIR/big_crc.pt, for the CRC-32 test of tests/torch_checkpoint_test.cpp.
Usage: make_big_crc.py OUT_DIR"""
import os
import sys

import torch

if __name__ == "__main__":
    torch.save({"big": torch.arange(3 << 20, dtype=torch.float32), "small": torch.ones(7)},
               os.path.join(sys.argv[1], "big_crc.pt"))
