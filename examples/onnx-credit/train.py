#!/usr/bin/env python3
"""Trains the example's PyTorch classifier on credit.csv and exports it with torch.onnx.export.

Writes credit.pt (the weights, for check.py), credit.onnx (logits), credit-softmax.onnx (the same model
ending in a softmax: probabilities) and reference.csv (PyTorch's logits of the first 20 data rows, which
eccco's Go tests compare with the ONNX graph's). Deterministic: seed 0, full-batch Adam, 100 epochs.

Usage: python3 train.py   (needs torch and onnx: Debian's python3-torch and python3-onnx)
"""
import csv

import torch

from common import Net, load_schema, read

torch.manual_seed(0)
schema = load_schema()
rows, x = read(schema, "credit.csv")
classes = schema["classes"]
y = torch.tensor([classes.index(r[schema["target"]]) for r in rows])
n = len(rows)
perm = torch.randperm(n)
test, train = perm[: n // 5], perm[n // 5:]
mean, sd = x[train].mean(0), x[train].std(0)
sd[sd == 0] = 1
net = Net(x.shape[1], mean, sd)
opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=1e-3)
for epoch in range(100):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(net(x[train]), y[train])
    loss.backward()
    opt.step()
net.eval()
with torch.no_grad():
    acc = lambda idx: (net(x[idx]).argmax(1) == y[idx]).float().mean().item()
    print(f"loss {loss.item():.4f}  train accuracy {acc(train):.3f}  test accuracy {acc(test):.3f}")
torch.save(net.state_dict(), "credit.pt")

dummy = x[:2]
axes = {"x": {0: "batch"}, "out": {0: "batch"}}
torch.onnx.export(net, dummy, "credit.onnx", input_names=["x"], output_names=["out"], dynamic_axes=axes,
                  opset_version=13)
soft = torch.nn.Sequential(net, torch.nn.Softmax(dim=1))
torch.onnx.export(soft, dummy, "credit-softmax.onnx", input_names=["x"], output_names=["out"],
                  dynamic_axes=axes, opset_version=13)
with torch.no_grad(), open("reference.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["row"] + [f"logit_{c}" for c in classes])
    for i, l in enumerate(net(x[:20]).tolist()):
        w.writerow([i] + [repr(v) for v in l])
