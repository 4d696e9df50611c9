#!/usr/bin/env python3
"""Makes counterfactuals of the example's PyTorch model with DiCE (dice-ml, model-agnostic random search)
and writes them in the CSV's own columns with a column 'row', for `eccco score`.

DiCE is given the immutable features as features not to vary and the schema's numeric bounds as permitted
ranges; it has no increase-only or decrease-only constraint, so `eccco score` may report those.

Usage: python3 dice_counterfactuals.py --rows 0-9 --out dice.csv   (needs dice-ml, pandas, torch; see
bench/requirements-dice.txt for the pinned versions)
"""
import argparse
import csv

import dice_ml
import numpy as np
import pandas as pd
import torch

from common import Net, encode, load_schema, read

ap = argparse.ArgumentParser()
ap.add_argument("--rows", default="0-9")
ap.add_argument("--out", required=True)
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()
rows = []
for item in args.rows.split(","):
    a, _, b = item.partition("-")
    rows += list(range(int(a), int(b or a) + 1))

schema = load_schema()
raw, x = read(schema, "credit.csv")
net = Net(x.shape[1], torch.zeros(x.shape[1]), torch.ones(x.shape[1]))
net.load_state_dict(torch.load("credit.pt"))
net.eval()
classes, target = schema["classes"], schema["target"]
names = [f["name"] for f in schema["features"]]
numeric = [f["name"] for f in schema["features"] if f["type"] == "numeric"]

df = pd.DataFrame(raw)[names + [target]]
for n in numeric:
    df[n] = df[n].astype(float)
df[target] = df[target].map(classes.index)


class Model:
    """predict_proba on DataFrames in the CSV's own columns, through the schema's encoding."""

    def predict_proba(self, frame):
        enc = [encode(schema, {n: (v if isinstance(v, str) else float(v)) for n, v in r.items()})
               for r in frame[names].to_dict("records")]
        with torch.no_grad():
            return torch.softmax(net(torch.tensor(enc, dtype=torch.float32)), 1).numpy()

    def predict(self, frame):
        return self.predict_proba(frame).argmax(1)


ranges = {}
for f in schema["features"]:
    if f["type"] == "numeric":
        ranges[f["name"]] = [f.get("min", df[f["name"]].min()), f.get("max", df[f["name"]].max())]
vary = [f["name"] for f in schema["features"] if f.get("mutable", True) is not False]
d = dice_ml.Data(dataframe=df, continuous_features=numeric, outcome_name=target)
m = dice_ml.Model(model=Model(), backend="sklearn")
exp = dice_ml.Dice(d, m, method="random")
np.random.seed(args.seed)
with open(args.out, "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["row"] + names)
    for r in rows:
        q = df.iloc[[r]][names]
        res = exp.generate_counterfactuals(q, total_CFs=1, desired_class="opposite", features_to_vary=vary,
                                           permitted_range=ranges, random_seed=args.seed + r)
        cf = res.cf_examples_list[0].final_cfs_df
        if cf is None or len(cf) == 0:
            print(f"row {r}: DiCE found no counterfactual")
            continue
        c = cf.iloc[0]
        w.writerow([r] + [c[n] for n in names])
