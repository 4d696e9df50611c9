#!/usr/bin/env python3
"""Re-weight a benchmark's cells to another mix of target classes, against the published numbers.

In the authors'-code mode the factual labels (and so the targets) are drawn once for all runs, from the
run's seed: 100 draws whose mix of targets differs between our seed and the authors' Julia RNG. On German
Credit that mix decides most of each cell (its models are near-constant: crossing to one class costs
several times more than to the other). The authors' mix can be read off their tables: REVISE's
counterfactuals of German Credit all land in class 1 (ours too: validity 1 for target 1, 0 for target 0),
so its published validity, 0.39 for every model, is their share of class-1 targets.

This script recomputes every "all counterfactuals" cell of a data set with each run's mean re-weighted to
the given share of class-1 targets, and counts the cells within the published mean ± max(3 sd, 0.015),
beside the plain means. Standard library only.

    scripts/reweight-targets.py runs/bench german-credit 0.39
"""
import collections
import csv
import glob
import os
import sys

TITLES = {"mlp": "MLP", "mlp-ensemble": "MLP Ensemble", "jem": "JEM", "jem-ensemble": "JEM Ensemble"}
METRICS = ["unfaithfulness", "implausibility", "uncertainty", "cost", "redundancy", "validity"]


def mean(values):
    return sum(values) / len(values)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out, dataset, share = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if not 0 <= share <= 1:
        sys.exit(f"the share of class-1 targets must be in [0, 1], not {share}")
    here = os.path.dirname(os.path.abspath(__file__))
    published = os.path.join(here, "..", "..", "shared", "paper", "published", "results.csv")
    published = os.environ.get("ECCCO_PUBLISHED", published)
    pub = {}
    with open(published, newline="") as f:
        for r in csv.DictReader(f):
            pub[(r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])] = (float(r["mean"]), float(r["std"]))
    per_metric = collections.defaultdict(lambda: [0, 0, 0])
    for kind, title in TITLES.items():
        for gen_dir in sorted(glob.glob(os.path.join(out, "units", dataset, kind, "*"))):
            rows = []
            for path in sorted(glob.glob(os.path.join(gen_dir, "run-*.csv"))):
                with open(path, newline="") as f:
                    rows += list(csv.DictReader(f))
            if not rows:
                continue
            generator = rows[0]["generator"]
            for metric in METRICS:
                key = (dataset, "all", title, generator, metric)
                if key not in pub:
                    continue
                runs = collections.defaultdict(lambda: collections.defaultdict(list))
                for r in rows:
                    runs[r["run"]][r["target"]].append(float(r[metric]))
                plain = mean([mean([v for vs in by.values() for v in vs]) for by in runs.values()])
                both = [by for by in runs.values() if by["0"] and by["1"]]
                if not both:
                    continue
                weighted = mean([(1 - share) * mean(by["0"]) + share * mean(by["1"]) for by in both])
                p, sd = pub[key]
                tol = max(3 * sd, 0.015)
                c = per_metric[metric]
                c[0] += abs(plain - p) <= tol
                c[1] += abs(weighted - p) <= tol
                c[2] += 1
    if not per_metric:
        sys.exit(f"no units of {dataset} under {out}/units with published cells")
    print(f"{dataset}, all counterfactuals, within the published mean ± max(3 sd, 0.015): plain / re-weighted to {share:.2f} class-1 targets")
    total = [0, 0, 0]
    for metric in METRICS:
        if metric in per_metric:
            a, b, n = per_metric[metric]
            print(f"  {metric:15s} {a:3d} / {b:3d} of {n}")
            total = [total[0] + a, total[1] + b, total[2] + n]
    print(f"  {'all':15s} {total[0]:3d} / {total[1]:3d} of {total[2]}")


if __name__ == "__main__":
    main()
