#!/usr/bin/env python3
"""Trains a small PyTorch CNN on MNIST and exports it with torch.onnx.export's defaults; writes the
example's data.

Reads the MNIST files (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
t10k-labels-idx1-ubyte, optionally gzipped) from the folder given as the first argument, or from
$ECCCO_DATA_DIR/mnist (as 'eccco fetch mnist' stores them). Writes

  digits.csv  200 test digits: columns pixel0 … pixel783 (row-major, in [0, 1]) and label
  digits.pt   the weights (for check.py)
  digits.onnx the model: one [1, 784] input (export's default: a fixed batch of 1), 10 logits

The CNN (Conv 8 3×3, ReLU, MaxPool 2, Conv 16 3×3, ReLU, MaxPool 2, Gemm to 10 logits) reads the 784
pixels as a 28 × 28 image. Deterministic: seed 0, 20,000 training digits, 2 epochs of Adam.

Usage: python3 train.py [MNIST-FOLDER]   (needs torch: Debian's python3-torch)
"""
import csv
import gzip
import os
import sys

import torch

from common import Net

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("ECCCO_DATA_DIR", "."), "mnist")


def idx(name):
    path = os.path.join(folder, name)
    opener = open
    if not os.path.exists(path):
        path, opener = path + ".gz", gzip.open
    with opener(path, "rb") as f:
        b = f.read()
    dims = b[3]
    shape = [int.from_bytes(b[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims)]
    return torch.frombuffer(bytearray(b[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


torch.manual_seed(0)
xtr = idx("train-images-idx3-ubyte")[:20000].reshape(-1, 784).float() / 255
ytr = idx("train-labels-idx1-ubyte")[:20000].long()
xte = idx("t10k-images-idx3-ubyte").reshape(-1, 784).float() / 255
yte = idx("t10k-labels-idx1-ubyte").long()

net = Net()
opt = torch.optim.Adam(net.parameters(), lr=2e-3)
for epoch in range(2):
    perm = torch.randperm(len(xtr))
    for i in range(0, len(xtr), 64):
        b = perm[i: i + 64]
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(xtr[b]), ytr[b])
        loss.backward()
        opt.step()
net.eval()
with torch.no_grad():
    acc = (net(xte).argmax(1) == yte).float().mean().item()
print(f"loss {loss.item():.4f}  test accuracy {acc:.3f}")
torch.save(net.state_dict(), "digits.pt")
torch.onnx.export(net, xte[:1], "digits.onnx")

# 200 test digits, 20 of each class, as 'eccco explain-onnx' reads them (pixels written as k/255 to 4 digits).
rows = []
for c in range(10):
    rows += (yte == c).nonzero().flatten()[:20].tolist()
rows.sort()
with open("digits.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow([f"pixel{j}" for j in range(784)] + ["label"])
    for r in rows:
        w.writerow([f"{v:.4g}" if v else "0" for v in xte[r].tolist()] + [int(yte[r])])
print(f"wrote digits.pt, digits.onnx and digits.csv ({len(rows)} digits)")
