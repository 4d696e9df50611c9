"""The example's encoding of a CSV row into the model's inputs, written from schema.json's contract
(numeric as written, a categorical feature one-hot in the order of its categories, an ordinal one as its
level's index), and the PyTorch model. Shared by train.py and check.py."""
import csv
import json

import torch


def load_schema(path="schema.json"):
    with open(path) as f:
        return json.load(f)


def encode(schema, row):
    x = []
    for f in schema["features"]:
        v = row[f["name"]]
        if f["type"] == "categorical":
            x += [1.0 if v == c else 0.0 for c in f["categories"]]
        elif f["type"] == "ordinal":
            x.append(float(f["levels"].index(v)))
        else:
            x.append(float(v))
    return x


def read(schema, path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, torch.tensor([encode(schema, r) for r in rows], dtype=torch.float32)


class Net(torch.nn.Module):
    """An MLP whose first step standardises its inputs, so that it reads the CSV's own units."""

    def __init__(self, d, mean, sd, hidden=16, k=2):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("sd", sd)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(d, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, k))

    def forward(self, x):
        return self.mlp((x - self.mean) / self.sd)
