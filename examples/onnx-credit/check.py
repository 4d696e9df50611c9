#!/usr/bin/env python3
"""Checks counterfactuals written by `eccco explain-onnx` (or any tool, in the same columns) against the
original PyTorch model and the schema, independently of eccco's code: every category and level is one of
the schema's, immutable features equal the factual's, increase-only (decrease-only) features did not
decrease (increase), values lie within the schema's min/max or the data's range, and the class PyTorch
predicts for each written row is the target wherever the file says it is valid.

Usage: python3 check.py CF.csv   (exit status 1 when a check fails)
"""
import csv
import sys

import torch

from common import Net, encode, load_schema, read

schema = load_schema()
rows, x = read(schema, "credit.csv")
net = Net(x.shape[1], torch.zeros(x.shape[1]), torch.ones(x.shape[1]))
net.load_state_dict(torch.load("credit.pt"))
net.eval()
classes = schema["classes"]

with open(sys.argv[1], newline="") as f:
    cfs = list(csv.DictReader(f))
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL", msg)


numeric_range = {}
for f in schema["features"]:
    if f["type"] == "numeric":
        vals = [float(r[f["name"]]) for r in rows]
        numeric_range[f["name"]] = (f.get("min", min(vals)), f.get("max", max(vals)))
    elif f["type"] == "ordinal":
        idx = [f["levels"].index(r[f["name"]]) for r in rows]
        numeric_range[f["name"]] = (f.get("min", min(idx)), f.get("max", max(idx)))

agree = 0
for cf in cfs:
    fac = rows[int(cf["row"])]
    tag = f'{cf["generator"]} row {cf["row"]}'
    for f in schema["features"]:
        n, v, v0 = f["name"], cf[f["name"]], fac[f["name"]]
        if f["type"] == "categorical" and v not in f["categories"]:
            fail(f"{tag}: {n} = {v!r} is not a category")
            continue
        if f["type"] == "ordinal" and v not in f["levels"]:
            fail(f"{tag}: {n} = {v!r} is not a level")
            continue
        mut = f.get("mutable", True)
        if mut is False and v != v0:
            fail(f"{tag}: immutable {n} changed {v0!r} -> {v!r}")
        if f["type"] == "categorical":
            continue
        num = (lambda s: f["levels"].index(s)) if f["type"] == "ordinal" else float
        a, a0 = num(v), num(v0)
        if mut == "increase" and a < a0:
            fail(f"{tag}: increase-only {n} went {v0} -> {v}")
        if mut == "decrease" and a > a0:
            fail(f"{tag}: decrease-only {n} went {v0} -> {v}")
        lo, hi = numeric_range[n]
        if not lo <= a <= hi:
            fail(f"{tag}: {n} = {v} outside [{lo}, {hi}]")
    with torch.no_grad():
        p = torch.softmax(net(torch.tensor([encode(schema, cf)])), 1)[0]
    pred = classes[int(p.argmax())]
    valid = cf["valid"] == "true"
    if valid != (pred == cf["target"]):
        fail(f'{tag}: the file says valid={cf["valid"]}, PyTorch predicts {pred} ({p.max():.4f}) for target {cf["target"]}')
    else:
        agree += 1
print(f"{len(cfs)} counterfactuals checked: validity agrees with PyTorch for {agree}; {fails} failures")
sys.exit(1 if fails else 0)
