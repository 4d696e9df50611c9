#!/usr/bin/env python3
"""Checks counterfactuals written by `eccco explain-onnx` against the PyTorch model,
independently of eccco's code: every pixel lies in the schema's image range, and PyTorch's class of each
written image is its target wherever the file says it is valid. Prints each generator's validity as
PyTorch sees it.

Usage: python3 check.py CF.csv   (exit status 1 when a check fails)
"""
import csv
import json
import sys

import torch

from common import Net

schema = json.load(open("schema.json"))
im = schema["image"]
cols = [f"{im['prefix']}{im.get('first', 0) + j}" for j in range(im["height"] * im["width"])]
classes = schema["classes"]
net = Net()
net.load_state_dict(torch.load("digits.pt"))
net.eval()

with open(sys.argv[1], newline="") as f:
    cfs = list(csv.DictReader(f))
fails = 0
valid, total = {}, {}
for line, r in enumerate(cfs, start=2):
    x = torch.tensor([[float(r[c]) for c in cols]])
    if x.min() < im["min"] or x.max() > im["max"]:
        print(f"FAIL line {line}: a pixel outside {im['min']} … {im['max']}")
        fails += 1
    with torch.no_grad():
        p = torch.softmax(net(x), 1)[0]
    t = classes.index(r["target"])
    ok = p[t].item() >= 0.5
    g = r["generator"]
    total[g] = total.get(g, 0) + 1
    valid[g] = valid.get(g, 0) + ok
    if (r["valid"] == "true") != ok:
        print(f"FAIL line {line}: the file says valid={r['valid']}, PyTorch's p(target {r['target']}) = {p[t]:.3f}")
        fails += 1
for g in total:
    print(f"{g}: {valid[g]} of {total[g]} valid by PyTorch (p(target) >= 0.5)")
sys.exit(1 if fails else 0)
