#!/usr/bin/env python3
"""Recount the report's claims findings (paper/report/findings.json) in plain Python.

Independent of the Go code: from each result set's cells.csv and run-means.csv.gz and the published
numbers, it rebuilds every difference that the paper's claims name, its 95 % interval (paired over runs
where the run means are kept, else Welch with the delta method), its outcome under the rule (significant
and at least 5 % of the metric) and every claim's tally and verdict, and compares them with the JSON.
The claims are written here from the paper's sentences, not read from the Go code.

  python3 scripts/recount_findings.py [--findings paper/report/findings.json] [--paper paper]

Exits 1 when a verdict, a count, an outcome or an estimate (relative 1e-6) differs.
"""
import argparse
import csv
import gzip
import json
import math
import os
import sys

CONF = 0.95
MAT = 0.05
HOLDS, PARTLY = 0.8, 0.5
DATASETS = ["linearly-separable", "moons", "circles", "california-housing", "gmsc", "german-credit", "mnist", "fashion-mnist"]
FAMILY = ["ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)"]
MAIN = ["ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)", "REVISE", "Schut", "Wachter"]
PLAIN = {"JEM": "MLP", "JEM Ensemble": "MLP Ensemble"}
# The paper's runs per cell (authors' jobscripts: 50 × 100 factuals; 10 × 100 for the image sets).
PUBLISHED_RUNS = {d: (10 if d in ("mnist", "fashion-mnist") else 50) for d in DATASETS}


# --- Student t ------------------------------------------------------------------------------------
def _betacf(a, b, x):
    tiny, eps = 1e-300, 3e-16
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < eps:
            break
    return h


def _ibeta(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1 - math.exp(lbt) * _betacf(b, a, 1 - x) / b


def t_cdf(t, df):
    x = df / (df + t * t)
    p = 0.5 * _ibeta(df / 2, 0.5, x)
    return 1 - p if t > 0 else p


def t_quantile(p, df):
    if math.isinf(df):
        lo, hi = 0.0, 10.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# --- estimates ------------------------------------------------------------------------------------
def interval(value, se, df):
    if se == 0:
        return value, value, math.inf
    q = t_quantile(1 - (1 - CONF) / 2, df)
    return value - q * se, value + q * se, df


def paired(d, scale):
    n = len(d)
    if n < 2:
        return None
    m = sum(d) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
    se = sd / math.sqrt(n)
    lo, hi, df = interval(m, se, n - 1)
    return dict(value=m, lo=lo, hi=hi, scale=scale, test="paired over runs", runs=n)


def welch(f, m, s, n, scale):
    v = f(m)
    if not math.isfinite(v):
        return None
    var, den = 0.0, 0.0
    x = list(m)
    for i in range(len(m)):
        if n[i] < 2:
            return None
        h = 1e-6 * max(1.0, abs(m[i]))
        x[i] = m[i] + h
        up = f(x)
        x[i] = m[i] - h
        down = f(x)
        x[i] = m[i]
        g = (up - down) / (2 * h)
        c = g * g * s[i] * s[i] / n[i]
        var += c
        den += c * c / (n[i] - 1)
    se = math.sqrt(var)
    df = var * var / den if den > 0 else 0
    lo, hi, df = interval(v, se, df)
    return dict(value=v, lo=lo, hi=hi, scale=scale, test="Welch", runs=min(n))


def judge(e, want, mat=MAT):
    material = e["scale"] > 0 and abs(e["value"]) >= mat * e["scale"]
    if want == "below zero":
        if e["hi"] < 0 and material:
            return "for"
        if e["lo"] > 0 and material:
            return "against"
    elif want == "above zero":
        if e["lo"] > 0 and material:
            return "for"
        if e["hi"] < 0 and material:
            return "against"
    else:  # not materially above zero
        if e["lo"] > 0 and material:
            return "against"
        if e["scale"] > 0 and e["hi"] < mat * e["scale"]:
            return "for"
    return "neither"


# --- sources --------------------------------------------------------------------------------------
def rnd(v, d):
    p = 10 ** d
    x = v * p
    return math.copysign(math.floor(abs(x) + 0.5), x) / p


class Source:
    def __init__(self, cells, runs=None, decimals=None, only=None):
        """decimals, where given, maps a cell to the decimals the paper printed it with (published_decimals):
        each cell is rounded to them and its sd floored at half the last, as the published tables print."""
        self.cells, self.runs = {}, {}
        pairs = []
        for c in cells:
            if c["subset"] != "all" or math.isnan(c["mean"]):
                continue
            mean, sd, n = c["mean"], c["sd"], c["runs"]
            if decimals:
                dec = decimals(c)
                mean = rnd(mean, dec)
                sd = max(rnd(sd, dec), 0.5 * 10 ** -dec)
            if not n:
                n = PUBLISHED_RUNS.get(c["dataset"], 0)
            self.cells[(c["dataset"], c["model"], c["generator"], c["metric"])] = (mean, sd, n)
            p = (c["dataset"], c["model"])
            if p not in pairs and (only is None or p in only):
                pairs.append(p)
        self.pairs = pairs
        if runs and not decimals:
            for r in runs:
                if r["subset"] != "all" or r["n"] == 0 or math.isnan(r["mean"]):
                    continue
                self.runs.setdefault((r["dataset"], r["model"], r["generator"], r["metric"]), {})[r["run"]] = r["mean"]

    def has(self, ds, model, gen, metric):
        return (ds, model, gen, metric) in self.cells

    def estimate(self, ds, terms, f, relative):
        keys = [(ds,) + t for t in terms]
        if any(k not in self.cells for k in keys):
            return None
        m = [self.cells[k][0] for k in keys]
        scale = 1.0 if relative else max(abs(x) for x in m)
        if all(k in self.runs for k in keys):
            common = set(self.runs[keys[0]])
            for k in keys[1:]:
                common &= set(self.runs[k])
            d = [f([self.runs[k][r] for k in keys]) for r in sorted(common)]
            return paired(d, scale)
        return welch(f, m, [self.cells[k][1] for k in keys], [self.cells[k][2] for k in keys], scale)


def read_cells(path, published=False):
    out = []
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            out.append(dict(dataset=r["dataset"], subset=r["subset"], model=r["model"], generator=r["generator"], metric=r["metric"],
                            mean=float(r["mean"]), sd=float(r["std"]), runs=0 if published else int(r["runs"]),
                            decimals=int(r.get("decimals") or 2) if published else 0))
    return out


def published_decimals(pub):
    """For each cell, the decimals the paper printed it with (the published table's decimals column: 3 for
    Table 2's cells, 2 for the appendix's and for a cell the paper does not have)."""
    dec = {(c["dataset"], c["subset"], c["model"], c["generator"], c["metric"]): c["decimals"] for c in pub}
    return lambda c: dec.get((c["dataset"], c["subset"], c["model"], c["generator"], c["metric"]), 2)


def read_runs(path):
    if not os.path.exists(path):
        return None
    out = []
    with gzip.open(path, "rt", newline="") as fh:
        for r in csv.DictReader(fh):
            out.append(dict(dataset=r["dataset"], subset=r["subset"], model=r["model"], generator=r["generator"], metric=r["metric"],
                            run=int(r["run"]), n=int(r["n"]), mean=float(r["mean"])))
    return out


# --- the claims, from the paper's sentences ----------------------------------------------------------
def d(model, a, b, metric, want):
    return ((model, a, metric), (model, b, metric)), (lambda v: v[0] - v[1]), want, False


def claim_units(src, which):
    return [p for p in src.pairs if which(p[0], p[1], src)]


def c1(src, ds, m):  # ECCCo more faithful than Wachter
    return [d(m, "ECCCo", "Wachter", "unfaithfulness", "below zero")] if all(src.has(ds, m, g, "unfaithfulness") for g in ("ECCCo", "Wachter")) else None


def c2(src, ds, m):  # the ECCCo family the most faithful
    fam = [g for g in MAIN if g in FAMILY and src.has(ds, m, g, "unfaithfulness")]
    oth = [g for g in MAIN if g not in FAMILY and src.has(ds, m, g, "unfaithfulness")]
    if not fam or not src.has(ds, m, "Wachter", "unfaithfulness"):
        return None
    k = len(fam)
    return [(tuple((m, g, "unfaithfulness") for g in fam + oth), (lambda v, k=k: min(v[:k]) - min(v[k:])), "below zero", False)]


def both(src, ds, m, gens, metric, pairs, want="below zero"):
    if not all(src.has(ds, m, g, metric) for g in gens):
        return None
    return [d(m, a, b, metric, want) for a, b in pairs]


def c3(src, ds, m):
    return both(src, ds, m, ("ECCCo", "ECCCo (no CP)", "ECCCo (no EBM)"), "unfaithfulness", [("ECCCo", "ECCCo (no CP)"), ("ECCCo", "ECCCo (no EBM)")])


def c4(src, ds, m):
    return both(src, ds, m, ("Wachter", "ECCCo (no CP)", "ECCCo (no EBM)"), "unfaithfulness", [("ECCCo (no CP)", "Wachter"), ("ECCCo (no CP)", "ECCCo (no EBM)")])


def c5(src, ds, m):
    return both(src, ds, m, ("ECCCo", "ECCCo+"), "unfaithfulness", [("ECCCo+", "ECCCo")], "not materially above zero")


def c6(src, ds, m):
    return both(src, ds, m, ("REVISE", "Wachter"), "unfaithfulness", [("REVISE", "Wachter")])


def c7(src, ds, m):
    if not all(src.has(ds, m, g, "implausibility") for g in ("ECCCo+", "Wachter", "REVISE")):
        return None
    return [(((m, "ECCCo+", "implausibility"), (m, "Wachter", "implausibility"), (m, "REVISE", "implausibility")), (lambda v: v[0] - (v[1] + v[2]) / 2), "below zero", False)]


def c8(src, ds, m):
    others = [g for g in MAIN if g not in ("ECCCo+", "REVISE") and src.has(ds, m, g, "implausibility")]
    if not others or not src.has(ds, m, "ECCCo+", "implausibility"):
        return None
    return [(tuple((m, g, "implausibility") for g in ["ECCCo+"] + others), (lambda v: v[0] - min(v[1:])), "below zero", False)]


NN = "read as the target (1-NN)"


def c9(src, ds, m):  # the appendix grids read as the target by the nearest training image, ECCCo+ − REVISE
    if not all(src.has(ds, m, g, NN) for g in ("ECCCo+", "REVISE")):
        return None
    return [(((m, "ECCCo+", NN), (m, "REVISE", NN)), (lambda v: v[0] - v[1]), "above zero", True)]


GRID_MODELS = {"lenet": "LeNet-5", "mlp": "MLP", "mlp-ens": "MLP Ensemble", "jem": "JEM", "jem-ens": "JEM Ensemble"}


def grid_cells(figdir):
    """The appendix grids' shares (their criteria files): ECCCo+'s from mnist-eccco-*, REVISE's from
    mnist-revise-* (REVISE's share minus ECCCo+'s), each of the 90 counterfactuals one draw."""
    out = []
    for slug, model in GRID_MODELS.items():
        pe, pr = os.path.join(figdir, f"mnist-eccco-{slug}.criteria.json"), os.path.join(figdir, f"mnist-revise-{slug}.criteria.json")
        if not (os.path.exists(pe) and os.path.exists(pr)):
            continue
        e = json.load(open(pe))["criteria"][0]["value"]
        r = json.load(open(pr))["criteria"][0]["value"] + e
        for gen, p in (("ECCCo+", e), ("REVISE", r)):
            out.append(dict(dataset="mnist", subset="all", model=model, generator=gen, metric=NN, mean=p, sd=math.sqrt(p * (1 - p)), runs=90))
    return out


def c10(src, ds, m):
    return both(src, ds, m, ("ECCCo", "Wachter"), "uncertainty", [("ECCCo", "Wachter")])


def c11(src, ds, m):
    return both(src, ds, m, ("ECCCo", "Wachter"), "cost", [("ECCCo", "Wachter")], "above zero")


def gain(e, w):
    return (w - e) / w


def c12(src, ds, m):
    p = PLAIN[m]
    if not all(src.has(ds, x, g, "implausibility") for x in (m, p) for g in ("ECCCo", "Wachter")):
        return None
    return [(((m, "ECCCo", "implausibility"), (m, "Wachter", "implausibility"), (p, "ECCCo", "implausibility"), (p, "Wachter", "implausibility")),
             (lambda v: gain(v[0], v[1]) - gain(v[2], v[3])), "above zero", True)]


def c13(src, ds, m):
    if not all(src.has(ds, m, g, "implausibility") for g in ("ECCCo", "Wachter")):
        return None
    return [(((m, "ECCCo", "implausibility"), (m, "Wachter", "implausibility")), (lambda v: gain(v[0], v[1])), "not materially above zero", True)]


ALL = lambda ds, m, s: True
CLAIMS = [
    ("ECCCo more faithful than Wachter", ALL, c1),
    ("ECCCo's variants the most faithful", ALL, c2),
    ("The full objective the most faithful of the ablations", ALL, c3),
    ("The energy term does the work", ALL, c4),
    ("Latent search does not impede faithfulness", ALL, c5),
    ("REVISE more faithful for the models that learned plausibly",
     lambda ds, m, s: (m == "JEM Ensemble" and ds in ("california-housing", "gmsc")) or (m == "LeNet-5" and ds == "mnist"), c6),
    ("ECCCo+ approaches the best plausibility", ALL, c7),
    ("ECCCo+ second only to REVISE on vision", lambda ds, m, s: ds in ("mnist", "fashion-mnist"), c8),
    ("ECCCo+ looks better than REVISE on MNIST", lambda ds, m, s: ds == "mnist", c9),
    ("ECCCo reduces predictive uncertainty", ALL, c10),
    ("Closeness traded against plausibility and faithfulness", ALL, c11),
    ("Plausible if the model learned plausibly", lambda ds, m, s: m in PLAIN and (ds, PLAIN[m]) in s.pairs, c12),
    ("Plausible only if the model learned plausibly", lambda ds, m, s: any(m == p and (ds, j) in s.pairs for j, p in PLAIN.items()), c13),
]


def test_claim(claim, src, mat=MAT):
    _, which, contrasts = claim
    tally = {"for": 0, "against": 0, "neither": 0, "not measurable": 0}
    units = {}
    for ds, m in claim_units(src, which):
        cs = contrasts(src, ds, m)
        outcome, ests = "for", []
        if not cs:
            outcome = "not measurable"
        for terms, f, want, rel in cs or []:
            e = src.estimate(ds, terms, f, rel)
            o = "not measurable" if e is None else judge(e, want, mat)
            ests.append((e, o))
            if o == "not measurable":
                outcome = "not measurable"
            elif outcome == "not measurable":
                pass
            elif o == "against":
                outcome = "against"
            elif o == "neither" and outcome == "for":
                outcome = "neither"
        tally[outcome] += 1
        units[(ds, m)] = (outcome, ests)
    measured = tally["for"] + tally["against"] + tally["neither"]
    if measured == 0:
        verdict = "not checkable"
    elif tally["for"] >= HOLDS * measured:
        verdict = "holds"
    elif tally["for"] >= PARTLY * measured:
        verdict = "partly"
    else:
        verdict = "does not hold"
    return tally, verdict, units


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--findings", default="paper/report/findings.json")
    ap.add_argument("--paper", default="paper")
    ap.add_argument("--figures", default="figures/gallery", help="the gallery whose MNIST grids' criteria claim 9 reads")
    a = ap.parse_args()
    with open(a.findings) as fh:
        fj = json.load(fh)
    p = a.paper
    pub = read_cells(os.path.join(p, "published-results.csv"), published=True)
    only = {(c["dataset"], c["model"]) for c in pub}

    def load(d):
        return read_cells(os.path.join(p, d, "cells.csv")), read_runs(os.path.join(p, d, "run-means.csv.gz"))

    main_cells, main_runs = load("results")
    sources = [Source(main_cells + grid_cells(a.figures), main_runs), Source(main_cells, None, published_decimals(pub), only)]
    for d in ("results-replay-only", "results-seed43", "results-paper-mode"):
        if os.path.isdir(os.path.join(p, d)):
            sources.append(Source(*load(d)))
    sources.append(Source(pub, None, published_decimals(pub)))
    names = fj["Sources"]
    problems = []
    if len(names) != len(sources):
        print(f"findings: {len(names)} sources, the recount builds {len(sources)}")
        return 1
    if abs(fj["Materiality"] - MAT) > 1e-12 or abs(fj["Confidence"] - CONF) > 1e-12:
        problems.append(f"rule: materiality {fj['Materiality']}, confidence {fj['Confidence']}")
    if [c["ID"] for c in fj["Claims"]] != [c[0] for c in CLAIMS]:
        problems.append("the claims differ: " + ", ".join(c["ID"] for c in fj["Claims"]))
    checked = estimates = 0
    for ci, (claim, jc) in enumerate(zip(CLAIMS, fj["Claims"])):
        for si, (src, jf) in enumerate(zip(sources, jc["Findings"])):
            tally, verdict, units = test_claim(claim, src)
            got = dict(tally)
            want = {"for": jf["For"], "against": jf["Against"], "neither": jf["Neither"], "not measurable": jf["Unmeasured"]}
            checked += 1
            if got != want or verdict != jf["Verdict"]:
                problems.append(f"{claim[0]} in {names[si]}: recount {got} {verdict}, findings {want} {jf['Verdict']}")
            ju = {(u["Dataset"], u["Model"]): u for u in jf["Units"] or []}
            if set(ju) != set(units):
                problems.append(f"{claim[0]} in {names[si]}: units differ: {sorted(set(ju) ^ set(units))}")
                continue
            for k, (outcome, ests) in units.items():
                u = ju[k]
                if u["Outcome"] != outcome:
                    problems.append(f"{claim[0]} in {names[si]}, {k}: outcome {outcome}, findings {u['Outcome']}")
                for (e, o), je in zip(ests, u["Estimates"] or []):
                    estimates += 1
                    if je["Outcome"] != o:
                        problems.append(f"{claim[0]} in {names[si]}, {k}, {je['Label']}: outcome {o}, findings {je['Outcome']}")
                    if e is None:
                        continue
                    for f in ("value", "lo", "hi", "scale"):
                        jv = je[f[0].upper() + f[1:]]
                        if jv is None or abs(jv - e[f]) > 1e-6 * max(1.0, abs(e[f])):
                            problems.append(f"{claim[0]} in {names[si]}, {k}, {je['Label']}: {f} {e[f]!r}, findings {jv!r}")
                    if je["Test"] != e["test"] or je["Runs"] != e["runs"]:
                        problems.append(f"{claim[0]} in {names[si]}, {k}: test {e['test']} ({e['runs']}), findings {je['Test']} ({je['Runs']})")
    for sv in fj.get("Sensitivity") or []:
        for ci, claim in enumerate(CLAIMS):
            for si, src in enumerate(sources):
                tally, _, _ = test_claim(claim, src, sv["Materiality"])
                jt = sv["Tallies"][ci][si]
                if (tally["for"], tally["against"], tally["neither"], tally["not measurable"]) != (jt["For"], jt["Against"], jt["Neither"], jt["Unmeasured"]):
                    problems.append(f"sensitivity {sv['Materiality']}: {claim[0]} in {names[si]}: recount {tally}, findings {jt}")
    for pr in problems[:40]:
        print("MISMATCH", pr)
    print(f"findings recount: {checked} claim × source verdicts and {estimates} differences checked, {len(problems)} mismatches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
