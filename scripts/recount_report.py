#!/usr/bin/env python3
"""recount_report.py: the numbers the report and the README print, recounted in plain Python (no eccco code).

Usage: scripts/recount_report.py [--report paper/eccco-go.md] [--tex paper/report/eccco-go.tex] [--readme README.md]

From the committed table sets alone (paper/results, paper/results-replay-only, paper/results-paper-mode,
paper/results-seed43: cells.csv and calibration.csv) and the published numbers (paper/published-results.csv),
by the rules the report states, it recounts and looks up in the report's Markdown version:
  - the headline counts of the abstract, Section 5.2 and the switch section (main and replay-only), and the
    conclusion's;
  - the per-metric and per-data-set tables of cells within, and each data set's paragraph (within, strict,
    by metric with the direction of the misses, the signs, the likely causes);
  - the model-performance table (ours, the paper's, the difference of accuracy), the spread of the run means,
    the rank table per data set and model, and the calibration table;
  - the signs of ECCCo - Wachter (unfaithfulness) and REVISE - Wachter (implausibility), ties apart;
  - the misses by likely cause (the rules of the report's cause table, applied in its order);
  - the median Spearman rho per metric;
  - the claims table: each row as the findings beside the LaTeX source give it (recounted by recount_findings.py);
  - the fitted switches' table (cells within per data set, with and without);
  - the second seed's section (cells that differ by |z| > 3 between the seeds, those that change side);
  - the figure captions: each verdict and measured number against the criteria archived beside the gallery's
    images (figures/gallery/NAME.criteria.json, written by eccco figures);
every cell of the report's result tables in its LaTeX source (ours, rounded as printed, with the dagger where
outside the tolerance, the stars and the bold; the paper's line below it); the README's headline
paragraph; and every table set's comparison.md (check_comparison: each of its cells' rows, counts, summaries,
spread, ranks, signs, calibration and causes). Every expected string is printed where it is missing; exit status 1
if any is.
"""
import argparse, csv, math, os, re, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recount import marks  # the tables' stars and bold, recomputed from cells.csv

SLACK = 1e-9
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLES = {"linearly-separable": "Linearly Separable", "moons": "Moons", "circles": "Circles",
          "california-housing": "California Housing", "gmsc": "GMSC", "german-credit": "German Credit",
          "mnist": "MNIST", "fashion-mnist": "Fashion MNIST"}
DATASETS = list(TITLES)
METRICS = ["unfaithfulness", "implausibility", "uncertainty", "cost", "redundancy", "validity"]
GENERATORS = ["ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)", "ECCCo-L1", "ECCCo-L1 (no CP)",
              "ECCCo-L1 (no EBM)", "REVISE", "Schut", "Wachter"]
MODELS = ["MLP", "MLP Ensemble", "JEM", "JEM Ensemble", "LeNet-5"]


def pct(k, n):
    return "%.0f %%" % (100.0 * k / n) if n else "–"


def share(k, n):
    return f"{k} of {n} ({pct(k, n)})" if n else "0 of 0"


def read_cells(d):
    cells = {}
    with open(os.path.join(d, "cells.csv"), newline="") as f:
        for r in csv.DictReader(f):
            m = float(r["mean"])
            if math.isnan(m):
                continue
            cells[(r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])] = (m, float(r["std"]), int(r["runs"]))
    return cells


def read_bounds(d):
    b = {}
    p = os.path.join(d, "calibration.csv")
    if os.path.exists(p):
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                b[(r["dataset"], r["model"])] = (float(r["omega_min"]), float(r["omega_max"]))
    return b


def paper_runs(ds):
    return 10 if ds in ("mnist", "fashion-mnist") else 50


def half(dec):
    """Half the last decimal of a number printed to dec decimals: 0.005 for the appendix's two, 0.0005 for
    Table 2's three. The tolerance's floor is 3 × half, the published sd's floor half."""
    return 0.5 * 10 ** -dec


def read_published(path):
    """paper/published-results.csv: (mean, sd, decimals the paper printed the cell with) per cell."""
    pub = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            pub[(r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])] = (float(r["mean"]), float(r["std"]), int(r.get("decimals") or 2))
    return pub


def compare(cells, pub, bounds):
    """One row per cell with a published counterpart: (key, mean, sd, runs, paper, paper_sd, within, strict, z, cause,
    paper_decimals)."""
    rows = []
    for k, (m, s, n) in cells.items():
        if k not in pub:
            continue
        pm, ps, dec = pub[k]
        h = half(dec)
        d = abs(m - pm)
        within = d <= max(3 * ps, 3 * h) + SLACK
        strict = d <= 3 * ps + SLACK
        z = math.nan
        if n >= 2 and not math.isnan(s):
            z = (m - pm) / math.sqrt(s * s / n + max(ps, h) ** 2 / paper_runs(k[0]))
        cause = ""
        if not within:
            ds, sub, model, gen, metric = k
            twin = pub.get((ds, "valid", model, gen, metric))
            b = bounds.get((ds, model))
            impossible = metric == "uncertainty" and b is not None and twin is not None and \
                (twin[0] < b[0] - half(twin[2]) - SLACK or twin[0] > b[1] + half(twin[2]) + SLACK)
            if not math.isnan(z) and abs(z) <= 3:
                cause = "chance"
            elif impossible:
                cause = "calibration"
            elif model in ("JEM", "JEM Ensemble") and metric == "validity" and pm >= 0.95 and m < pm:
                cause = "JEM validity"
            elif gen == "REVISE" and ds in ("linearly-separable", "circles"):
                cause = "REVISE"
            elif gen == "REVISE" and ds in ("mnist", "fashion-mnist"):
                cause = "REVISE on images"
            elif metric == "unfaithfulness" and ((ds == "gmsc" and m > pm) or (ds == "german-credit" and m < pm)):
                cause = "prior box"
            elif gen in ("Wachter", "ECCCo-L1") and metric in ("cost", "implausibility") and ds in ("mnist", "fashion-mnist"):
                cause = "image weights"
            else:
                cause = "unexplained"
        rows.append((k, m, s, n, pm, ps, within, strict, z, cause, dec))
    return rows


MAIN_GENERATORS = ["ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)", "REVISE", "Schut", "Wachter"]


def discriminating(pub):
    """The published cells whose tolerance max(3 sd, 3 half(decimals)) is narrower than the spread of the main
    generators' published means for the same data set, subset, model and metric."""
    lo, hi = {}, {}
    for k, (m, _, _) in pub.items():
        if k[3] in MAIN_GENERATORS:
            g = (k[0], k[1], k[2], k[4])
            lo[g], hi[g] = min(lo.get(g, m), m), max(hi.get(g, m), m)
    out = set()
    for k, (m, sd, dec) in pub.items():
        g = (k[0], k[1], k[2], k[4])
        if max(3 * sd, 3 * half(dec)) + SLACK < hi.get(g, 0) - lo.get(g, 0):
            out.add(k)
    return out


def discriminating_text(rows, disc):
    d = [r for r in rows if r[0] in disc]
    wd = sum(r[6] for r in d)
    w = sum(r[6] for r in rows)
    return (f"only {len(d)} of the {len(rows)} cells can tell the generators apart (their tolerance is narrower than the spread of the main tables' generators' published means), "
            f"and of these {share(wd, len(d))} are within; the other {len(rows) - len(d)} ({w - wd} of them within) would agree as well with the generators' results swapped, so their agreement says nothing")


def tally(rows):
    t = dict(cells=len(rows), within=sum(r[6] for r in rows), strict=sum(r[7] for r in rows))
    t["floor"] = sum(r[6] and not r[7] for r in rows)
    opn = [r for r in rows if not (r[0][1] == "valid" and r[0][4] == "validity")]
    t["open"], t["open_within"], t["open_strict"] = len(opn), sum(r[6] for r in opn), sum(r[7] for r in opn)
    t["misses"] = t["cells"] - t["within"]
    t["sig"] = sum(not math.isnan(r[8]) and abs(r[8]) > 3 for r in rows)
    mz = [abs(r[8]) for r in rows if not r[6] and not math.isnan(r[8])]
    t["minz"] = min(mz) if mz else math.nan
    return t


def cell_share(k, n):
    """share, with "cells" after the denominator: "3079 of 3456 cells (89 %)"."""
    return share(k, n).replace(f"of {n}", f"of {n} cells", 1)


def within_text(t):
    return (f"{cell_share(t['within'], t['cells'])} within the paper's mean ± max(3 sd, 3h) (rounding-aware, h half the last printed decimal), "
            f"{t['floor']} of them only by the floor 3h; {share(t['strict'], t['cells'])} within mean ± 3 sd strictly; "
            f"without the {t['cells'] - t['open']} cells fixed by construction: "
            f"{cell_share(t['open_within'], t['open'])} rounding-aware, {share(t['open_strict'], t['open'])} strictly")


def signs(cells, pub, datasets=None):
    out = {}
    for metric, gen in (("unfaithfulness", "ECCCo"), ("implausibility", "REVISE")):
        agree = dis = ties = 0
        for ds in DATASETS:
            if datasets and ds not in datasets:
                continue
            for model in MODELS:
                a, w = (ds, "all", model, gen, metric), (ds, "all", model, "Wachter", metric)
                if a in cells and w in cells and a in pub and w in pub:
                    ours, paper = cells[a][0] - cells[w][0], pub[a][0] - pub[w][0]
                    if abs(paper) < 0.005 - SLACK:
                        ties += 1
                    elif (ours > 0 and paper > 0) or (ours < 0 and paper < 0):
                        agree += 1
                    else:
                        dis += 1
        out[metric] = (agree, agree + dis, ties)
    return out


def sign_text(s):
    a, n, t = s
    txt = f"{a} of {n} agree"
    if t == 1:
        txt += ", 1 tie (the paper prints 0.00)"
    elif t > 1:
        txt += f", {t} ties (the paper prints 0.00)"
    return txt


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    if len(x) < 3:
        return math.nan
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


def paired(cells, pub, ds, model, metric):
    """Ours and the paper's means of the generators both have, for one data set, model and metric (all
    counterfactuals); none where no cell of them discriminates (the published ranks are then the rounding's)."""
    keys = [(ds, "all", model, g, metric) for g in GENERATORS]
    keys = [k for k in keys if k in cells and k in pub]
    if not any(k in discriminating(pub) for k in keys):
        return [], []
    return [cells[k][0] for k in keys], [pub[k][0] for k in keys]


def median_rho(cells, pub, metric):
    rhos = [r for r in (spearman(*paired(cells, pub, ds, model, metric)) for ds in DATASETS for model in MODELS) if not math.isnan(r)]
    return (statistics.median(rhos) if rhos else math.nan), len(rhos)


def seed_z(a, b):
    if a[2] < 2 or b[2] < 2 or math.isnan(a[1]) or math.isnan(b[1]):
        return math.nan
    d = b[0] - a[0]
    v = a[1] ** 2 / a[2] + b[1] ** 2 / b[2]
    if v == 0:
        return 0.0 if d == 0 else math.copysign(math.inf, d)
    return d / math.sqrt(v)


def rank_rows(cells, pub):
    """Spearman rho per data set and model, one value per metric both sides have: [(ds, model, generators, [rho...])]."""
    out = []
    for ds in DATASETS:
        for model in MODELS:
            vals, ngen = [], 0
            for metric in METRICS:
                present = [k for k in ((ds, "all", model, g, metric) for g in GENERATORS) if k in cells and k in pub]
                if present:
                    x, y = paired(cells, pub, ds, model, metric)
                    vals.append(spearman(x, y))
                    ngen = ngen or len(present)
            if vals:
                out.append((ds, model, ngen, vals))
    return out


def rho_text(vals):
    return " | ".join("–" if math.isnan(v) else f"{v:.2f}".replace("-", "−", 1) for v in vals)


def check_comparison(d, pub):
    """d/comparison.md read back: every row of its "Cells" table (ours to three decimals, the paper's, within,
    strict, z, the likely cause), its counts table (with the "both rounded" rule), the summary per metric and
    per data set, the spread of the run means, the rank agreement per data set, model and metric, the signs
    table, the calibration table and the misses by cause. Returns (strings checked, missing strings)."""
    cells = read_cells(d)
    rows = compare(cells, pub, read_bounds(d))
    md = open(os.path.join(d, "comparison.md")).read().replace("\\|", "|").replace("&gt;", ">").replace("&lt;", "<")
    want = []
    zt = lambda z: "–" if math.isnan(z) else f"{z:.1f}".replace("-", "−", 1)
    for k, m, sd, n, pm, ps, within, strict, z, cause, dec in rows:
        w = "yes, by the floor" if within and not strict else ("yes" if within else "no")
        if k[1] == "valid" and k[4] == "validity":
            w += " (by construction)"
        full = ""
        if cause:
            full = cause  # the cause's name; the table prints it with its explanation after a colon
        line = f"| {' | '.join(k)} | {m:.3f} ± {sd:.3f} | {pm:.{dec}f} ± {ps:.{dec}f} | {w} | {'yes' if strict else 'no'} | {zt(z)} | {full}"
        line += " |" if full in ("", "unexplained") else ":"  # a cause with an explanation goes on after a colon
        want.append(line)
    # The counts table, "both rounded" included.
    def counts_row(label, rs):
        br = sum(abs(r[1] - r[4]) <= 3 * max(r[5], half(r[10])) + half(r[10]) + SLACK for r in rs)
        t = tally(rs)
        nz = sum(not math.isnan(r[8]) and abs(r[8]) > 3 for r in rs)
        return (f"| {label} | {len(rs)} | {share(t['within'], len(rs))} | {t['floor']} | {share(t['strict'], len(rs))} | {share(br, len(rs))} | "
                f"{t['misses']} | {sum(not r[6] and not math.isnan(r[8]) and abs(r[8]) > 3 for r in rows if r in rs)} | {t['minz']:.1f} | {share(nz, len(rs))} |")
    opn = [r for r in rows if not (r[0][1] == "valid" and r[0][4] == "validity")]
    want.append(counts_row("all", rows))
    want.append(counts_row(f"without the {len(rows) - len(opn)} fixed by construction", opn))
    # The summary tables: cells within per metric and per data set.
    for key, names in ((4, METRICS), (0, DATASETS)):
        for name in names:
            rs = [r for r in rows if r[0][key] == name]
            if rs:
                want.append(f"| {name} | {len(rs)} | {share(sum(r[7] for r in rs), len(rs))} | {share(sum(r[6] for r in rs), len(rs))} |")
    # The spread of the run means: our sd over the published, where the published sd is at least 0.02.
    for metric in METRICS + ["all"]:
        rs = [r for r in rows if (metric == "all" or r[0][4] == metric) and r[5] >= 0.02 - SLACK and r[3] >= 2 and not math.isnan(r[2])]
        if not rs:
            continue
        ratios = [r[2] / r[5] for r in rs]
        wider = sum(x > 2 for x in ratios)
        want.append(f"| {metric} | {len(rs)} | {statistics.median(ratios):.2f} | {share(wider, len(rs))} |")
    # The misses by likely cause.
    causes = {}
    for r in rows:
        if r[9]:
            causes[r[9]] = causes.get(r[9], 0) + 1
    misses = sum(causes.values())
    for c, n in causes.items():
        want.append(f" | {n} | {pct(n, misses)} |")
    # Rank agreement per data set, model and metric.
    for ds, model, ngen, vals in rank_rows(cells, pub):
        want.append(f"| {ds} | {model} | {ngen} | {rho_text(vals)} |")
    # The calibration table: q̂, the Ω any valid counterfactual can have (inputs, calibration.csv), the published
    # and our Ω of valid counterfactuals (least–largest over the generators) and the uncertainty misses put
    # down to q̂.
    cal = {}
    p = os.path.join(d, "calibration.csv")
    if os.path.exists(p):
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                cal[(r["dataset"], r["model"])] = r
    for (ds, model), r in cal.items():
        keys = [k for k in cells if k[0] == ds and k[1] == "valid" and k[2] == model and k[4] == "uncertainty"]
        po = [pub[k][0] for k in keys if k in pub]
        oo = [cells[k][0] for k in keys]
        if not po or not oo:
            continue
        q = float(r["qhat_min"])
        # One q̂, or the range over the runs read, with their number (comparison.md's calibration table).
        qs = f"{q:.4f}" if float(r["qhat_min"]) == float(r["qhat_max"]) else f"{q:.4f}–{float(r['qhat_max']):.4f} ({r['runs']} runs)"
        unc = [x for x in rows if x[0][0] == ds and x[0][2] == model and x[0][4] == "uncertainty" and not x[6]]
        want.append(f"| {ds} | {model} | {qs} | {float(r['omega_min']):.2f}–{float(r['omega_max']):.2f} | {min(po):.2f}–{max(po):.2f} | {min(oo):.2f}–{max(oo):.2f} | {sum(x[9] == 'calibration' for x in unc)} of {len(unc)} |")
    # The signs table: ECCCo − Wachter (unfaithfulness) and REVISE − Wachter (implausibility), "all" subset.
    for ds in DATASETS:
        for model in MODELS:
            parts = []
            for metric, gen in (("unfaithfulness", "ECCCo"), ("implausibility", "REVISE")):
                a, w = (ds, "all", model, gen, metric), (ds, "all", model, "Wachter", metric)
                if a in cells and w in cells and a in pub and w in pub:
                    ours, paper = cells[a][0] - cells[w][0], pub[a][0] - pub[w][0]
                    ag = "tie" if abs(paper) < 0.005 - SLACK else ("yes" if (ours > 0 and paper > 0) or (ours < 0 and paper < 0) else "**no**")
                    parts.append(f"{ours:+.3f} | {paper:+.3f} | {ag}")
                else:
                    parts = []
                    break
            if parts:
                want.append(f"| {ds} | {model} | {parts[0]} | {parts[1]} |")
    missing = [w for w in want if w not in md]
    return len(want), missing


def check_figure_captions(md, gallery, readme):
    """The report's figure captions against the criteria archived beside the gallery's images
    (figures/gallery/NAME.criteria.json): each caption that says "Measured" gives the archive's verdicts in
    order (before any "Cause") and quotes each criterion's value and each measured number of its detail
    (two or more decimals) to the caption's own precision. Returns (checked, problems)."""
    import json
    label_name = dict(re.findall(r"^### `(fig:[a-z0-9-]+)` — ([a-z0-9-]+)$", open(readme).read(), re.M))
    num = re.compile(r"-?\d+(?:\.\d+)?")
    def quoted(x, noted):
        for n in noted:
            frac = n.split(".")[1] if "." in n else ""
            if abs(float(x) - float(n)) <= 0.5 * 10 ** -len(frac) + 1e-12:
                return True
        return False
    checked, problems = 0, []
    for label, ours in re.findall(r"^\*Figure R\d+\. `(fig:[a-z0-9-]+)` — .*?\*\*Ours:\*\* (.*?)(?: \*\*Drawn with:\*\*|\*$)", md, re.M):
        name = label_name.get(label)
        if not name or "Measured" not in ours:
            continue
        path = os.path.join(gallery, name + ".criteria.json")
        if not os.path.exists(path):
            problems.append(f"{label}: the caption says Measured but {path} is missing")
            continue
        checked += 1
        crit = json.load(open(path))["criteria"]
        text = ours.replace("−", "-").replace("\\", "")
        head = text.split("Cause")[0]
        got = [v == "holds" for v in re.findall(r"— (holds|does not hold)", head)]
        want = [c["holds"] for c in crit]
        if got != want:
            problems.append(f"{label}: verdicts {got} in the caption, {want} in the archive")
        noted = num.findall(text)
        for c in crit:
            for x in [c["shown"]] + re.findall(r"-?\d+\.\d{2,}", c.get("detail", "").replace("−", "-")):
                if not quoted(x, noted):
                    problems.append(f"{label}: {c['claim']}: the archive's {x} is not in the caption")
    return checked, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", default=os.path.join(ROOT, "paper", "eccco-go.md"))
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    ap.add_argument("--tex", default=os.path.join(ROOT, "paper", "report", "eccco-go.tex"), help="the report's LaTeX source, whose result tables are read back cell by cell")
    args = ap.parse_args()
    pub = read_published(os.path.join(ROOT, "paper", "published-results.csv"))
    d = lambda x: os.path.join(ROOT, "paper", x)
    main_c, ro_c, pm_c, s43_c = (read_cells(d(x)) for x in ("results", "results-replay-only", "results-paper-mode", "results-seed43"))
    main_rows = compare(main_c, pub, read_bounds(d("results")))
    ro_rows = compare(ro_c, pub, read_bounds(d("results-replay-only")))
    md = open(args.report).read()
    md = md.replace("\\|", "|").replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")  # Markdown's escapes
    readme = open(args.readme).read()
    want = []  # (where, expected string)

    disc = discriminating(pub)
    want.append(("abstract and 5.2", discriminating_text(main_rows, disc), 2))
    t, tr = tally(main_rows), tally(ro_rows)
    # The headlines stand in several places: each must be there every time.
    want.append(("abstract, 5.2, switch section", within_text(t), 3))
    want.append(("abstract, switch section", within_text(tr), 2))
    ms = "all significant" if t["sig"] >= t["misses"] else f"{t['sig']} significant"
    want.append(("5.2", f"{t['misses']} misses, {ms} (Welch's |z| > 3; the least |z| {t['minz']:.1f}); {cell_share(t['sig'], t['cells'])} have |z| > 3"))
    for metric in METRICS:
        rs = [r for r in main_rows if r[0][4] == metric]
        want.append(("table of cells within per metric", f"| {metric} | {len(rs)} | {share(sum(r[7] for r in rs), len(rs))} | {share(sum(r[6] for r in rs), len(rs))} |"))
    ro_by = {}
    for ds in DATASETS:
        rs = [r for r in main_rows if r[0][0] == ds]
        if not rs:
            continue
        want.append(("table of cells within per data set", f"| {TITLES[ds]} | {len(rs)} | {share(sum(r[7] for r in rs), len(rs))} | {share(sum(r[6] for r in rs), len(rs))} |"))
        rr = [r for r in ro_rows if r[0][0] == ds]
        w, wr = sum(r[6] for r in rs), sum(r[6] for r in rr)
        want.append(("fitted switches' table", f"| {TITLES[ds]} | {len(rs)} | {share(w, len(rs))} | {share(wr, len(rr))} | {w - wr:+d} |"))
        # The data set's paragraph.
        para = f"**{TITLES[ds]}.** {share(w, len(rs))} of the published cells lie within the tolerance ({share(sum(r[7] for r in rs), len(rs))} strictly). By metric: "
        want.append((f"{ds} paragraph", para))
        sg = signs(main_c, pub, [ds])
        want.append((f"{ds} paragraph", f"the sign of ECCCo − Wachter unfaithfulness: {sign_text(sg['unfaithfulness'])}; that of REVISE − Wachter implausibility: {sign_text(sg['implausibility'])}."))
        causes = {}
        for r in rs:
            if r[9]:
                causes[r[9]] = causes.get(r[9], 0) + 1
        if causes:
            cs = sorted(causes.items(), key=lambda c: (-c[1], c[0]))
            parts = [f"{c} ({n})" for c, n in cs]
            txt = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
            miss = sum(causes.values())
            want.append((f"{ds} paragraph", f"Likely causes of the {miss} {'miss' if miss == 1 else 'misses'}: {txt}."))
    want.append(("fitted switches' table", f"| **all** | {t['cells']} | {share(t['within'], t['cells'])} | {share(tr['within'], tr['cells'])} | {t['within'] - tr['within']:+d} |"))
    sg = signs(main_c, pub)
    want.append(("5.2 signs", f"the sign of ECCCo − Wachter: {sign_text(sg['unfaithfulness'])}; that of REVISE − Wachter: {sign_text(sg['implausibility'])}"))
    causes = {}
    for r in main_rows:
        if r[9]:
            causes[r[9]] = causes.get(r[9], 0) + 1
    for c, n in causes.items():
        want.append(("cause table", f"| {c}{'' if c == 'unexplained' else ':'}"))
        want.append(("cause table", f" | {n} | {pct(n, t['misses'])} |"))
    want.append(("conclusion", f"Of the {t['misses']} cells outside the tolerance, {share(causes.get('unexplained', 0), t['misses'])} have no known cause"))
    # The appendix on what differs: each known difference's misses, and the largest groups of unexplained
    # misses by data set and metric (the largest first, ties in the order of their first cells).
    def put_down(n):
        return "no cell outside the tolerance is put down to it here" if n == 0 else f"{n} {'cell' if n == 1 else 'cells'} outside the tolerance put down to it"
    want.append(("differences appendix", f"each item says how many of the {t['misses']} cells outside the tolerance"))
    for title, c in [("The unfaithfulness metric's prior box", "prior box"), ("The image models' calibration", "calibration"),
                     ("REVISE on images", "REVISE on images"), ("JEM validity", "JEM validity"),
                     ("The image generators' weights", "image weights"),
                     ("REVISE's VAE on two synthetic sets", "REVISE")]:
        want.append(("differences appendix", f"**{title}** ({put_down(causes.get(c, 0))})"))
    want.append(("differences appendix", f"**Unexplained** ({put_down(causes.get('unexplained', 0))}, where none of the above applies)"))
    groups = {}
    for r in main_rows:
        if r[9] == "unexplained":
            g = groups.setdefault((r[0][0], r[0][4]), [0, 0])
            g[0] += 1
            g[1] += r[1] > r[4]
    top = sorted(groups.items(), key=lambda kv: -kv[1][0])[:6]
    parts = [f"{TITLES[ds]} {metric}: {n} ({a} above the published, {n - a} below)" for (ds, metric), (n, a) in top]
    if parts:
        txt = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        want.append(("differences appendix", f"The largest groups by data set and metric: {txt}."))
    for metric in METRICS:
        r, n = median_rho(main_c, pub, metric)
        if n:
            want.append(("rank table", f"| {metric} | {n} | {r:.2f} |".replace("-", "−")))
    r, n = median_rho(main_c, pub, "unfaithfulness")
    want.append(("abstract", f"median Spearman ρ of {r:.2f} over {n} data set × model pairs"))

    # Each data set's "By metric" list (the direction of the misses of a metric below 80 %).
    for ds in DATASETS:
        rs = [r for r in main_rows if r[0][0] == ds]
        if not rs:
            continue
        items = []
        for metric in METRICS:
            mr = [r for r in rs if r[0][4] == metric]
            if not mr:
                continue
            w = sum(r[6] for r in mr)
            item = f"{metric} {pct(w, len(mr))}"
            miss = len(mr) - w
            notes = []
            if miss > 0 and w * 5 < len(mr) * 4:
                above = sum(1 for r in mr if not r[6] and r[1] > r[4])
                notes.append("every miss above the published" if above == miss else "every miss below the published" if above == 0 else f"{above} of its {miss} misses above the published")
            dm = [r for r in mr if r[0] in disc]
            if not dm:
                notes.append("no cell discriminating")
            elif len(dm) < len(mr):
                notes.append(f"within {sum(r[6] for r in dm)} of its {len(dm)} discriminating cells")
            if notes:
                item += " (" + "; ".join(notes) + ")"
            items.append(item)
        want.append((f"{ds} paragraph", "By metric: " + (items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]) + "."))
    # Each data set's systematic offsets: a metric whose "all" cells lie ≥ 80 % on one side of the paper's
    # with a median |ours − paper| of at least the coarsest rounding floor of those cells (3 × half the last
    # printed decimal: 0.015, the paper printing its "all" cells to two decimals), and the range of the
    # generators' own medians.
    def sig2(v):
        t = f"{v:.2g}"
        if "e" in t:
            t = repr(float(t))
        return ("+" if v >= 0 else "") + t.replace("-", "−")
    for ds in DATASETS:
        parts = []
        for metric in METRICS:
            mr = [r for r in main_rows if r[0][0] == ds and r[0][1] == "all" and r[0][4] == metric]
            if not mr:
                continue
            diffs = [r[1] - r[4] for r in mr]
            above, below = sum(x > 1e-9 for x in diffs), sum(x < -1e-9 for x in diffs)
            med = statistics.median(diffs)
            if 5 * max(above, below) < 4 * len(diffs) or abs(med) < max(3 * half(r[10]) for r in mr) - 1e-9:
                continue
            gm = [statistics.median([r[1] - r[4] for r in mr if r[0][3] == g]) for g in {r[0][3] for r in mr}]
            word, n = ("above", above) if med >= 0 else ("below", below)
            parts.append(f"{metric} {sig2(med)} (the median of ours − paper; ours {word} in {n} of {len(diffs)} cells), each generator's median from {sig2(min(gm))} to {sig2(max(gm))}")
        if parts:
            want.append((f"{ds} offsets", "Systematic offsets from the paper (all counterfactuals): " + "; ".join(parts) + "."))
    # The rank table per data set and model, the spread table and the calibration table, as the report prints them.
    for ds, model, ngen, vals in rank_rows(main_c, pub):
        want.append(("rank table per data set and model", f" | {model} | {rho_text(vals)} |"))
    for metric in METRICS + ["all"]:
        rs = [r for r in main_rows if (metric == "all" or r[0][4] == metric) and r[5] >= 0.02 - SLACK and r[3] >= 2 and not math.isnan(r[2])]
        if rs:
            ratios = [r[2] / r[5] for r in rs]
            want.append(("spread table", f"| {'**all**' if metric == 'all' else metric} | {len(rs)} | {statistics.median(ratios):.2f} | {share(sum(x > 2 for x in ratios), len(rs))} |"))
    with open(os.path.join(d("results"), "calibration.csv"), newline="") as f:
        for r in csv.DictReader(f):
            ds, model = r["dataset"], r["model"]
            unc = [x for x in main_rows if x[0][0] == ds and x[0][2] == model and x[0][4] == "uncertainty" and not x[6]]
            c = sum(x[9] == "calibration" for x in unc)
            if c == 0:
                continue  # the report lists the models where q̂ decides cells
            keys = [k for k in main_c if k[0] == ds and k[1] == "valid" and k[2] == model and k[4] == "uncertainty"]
            po, oo = [pub[k][0] for k in keys if k in pub], [main_c[k][0] for k in keys]
            want.append(("calibration table", f" | {model} | {float(r['qhat_min']):.4f} | {float(r['omega_min']):.2f}–{float(r['omega_max']):.2f} | {min(po):.2f}–{max(po):.2f} | {min(oo):.2f}–{max(oo):.2f} | {c} of {len(unc)} |"))
    # The model-performance table: ours, the paper's and the difference of accuracy.
    names = {"mlp": "MLP", "mlp-ensemble": "MLP Ensemble", "jem": "JEM", "jem-ensemble": "JEM Ensemble", "lenet": "LeNet-5", "lenet5": "LeNet-5"}
    with open(os.path.join(ROOT, "paper", "model-performance.csv"), newline="") as f:
        for r in csv.DictReader(f):
            a, pa = float(r["accuracy"]), float(r["paper_accuracy"])
            delta = f"{a - pa:+.3f}".replace("-", "−")
            want.append(("model-performance table", f" | {names.get(r['model'], r['model'])} | {a:.3f} | *{pa:.2f}* | {float(r['precision']):.3f} | *{float(r['paper_precision']):.2f}* | {float(r['f1']):.3f} | *{float(r['paper_f1']):.2f}* | {delta}"))

    # The timings tables: each "all" row is the sum of the data sets' rows (to the printed 0.1 min), and the
    # core-hours sentence is the total over 60.
    for name, label in (("results", "authors' code (up to 50 runs)"), ("results-replay-only", "authors' code, replay only (up to 50 runs)"),
                        ("results-paper-mode", "paper's equations (up to 5 runs)"), ("results-seed43", "authors' code, second seed (up to 10 runs)")):
        p = os.path.join(d(name), "timings.md")
        if not os.path.exists(p):
            continue
        # A timings.md may hold several tables (runs on different backends), each with its own "all" row; the
        # core-hours sum over them.
        blocks, cur = [], []
        for l in open(p):
            if l.startswith("| ") and not l.startswith("| data set"):
                cur.append([c.strip() for c in l.strip().strip("|").split("|")])
            elif not l.startswith("|") and cur:
                blocks.append(cur)
                cur = []
        if cur:
            blocks.append(cur)
        minutes = 0.0
        for rows_t in blocks:
            body = [r for r in rows_t if r[0] != "all"]
            tot = next(r for r in rows_t if r[0] == "all")
            for j in range(1, len(tot)):
                col = sum(float(r[j]) for r in body)
                ok = abs(col - float(tot[j])) <= 0.05 * len(body) + 1e-9  # each row printed to 0.1 min
                if not ok:
                    want.append((f"{name}/timings.md", f"'all' column {j}: {col:.1f} (printed {tot[j]})"))
            minutes += float(tot[-1])
        want.append(("wall-time section", f"{label} {minutes / 60:.1f} core-hours"))

    # The claims: the table renders the findings beside the LaTeX source, which scripts/recount_findings.py
    # recounts from the run means and the published numbers.
    import json
    with open(os.path.join(os.path.dirname(args.tex), "findings.json")) as fh:
        fj = json.load(fh)
    for c in fj["Claims"]:
        cols = [f"{f['For']} / {f['Against']} / {f['Neither']}: {f['Verdict']}" if f["For"] + f["Against"] + f["Neither"] else "–" for f in c["Findings"]]
        cols[-1] = f"*{cols[-1]}*" if cols[-1] != "–" else cols[-1]
        want.append(("claims table", f"| {c['ID']} | {' | '.join(cols)} |"))

    # The second seed.
    dss = {k[0] for k in s43_c}
    first = {k: v for k, v in main_c.items() if k[0] in dss}
    firstw = {r[0]: r[6] for r in compare(first, pub, {})}
    secw = {r[0]: r[6] for r in compare(s43_c, pub, {})}
    by = {}
    for k, b in s43_c.items():
        a = first.get(k)
        if a is None:
            continue
        for name in (k[3], "ds:" + k[0], "all"):
            g = by.setdefault(name, dict(cells=0, differ=0, pub=0, left=0, entered=0, w1=0, w2=0))
            g["cells"] += 1
            z = seed_z(a, b)
            g["differ"] += (not math.isnan(z)) and abs(z) > 3
            if k in firstw and k in secw:
                g["pub"] += 1
                g["w1"] += firstw[k]
                g["w2"] += secw[k]
                g["left"] += firstw[k] and not secw[k]
                g["entered"] += secw[k] and not firstw[k]
    for name, g in by.items():
        if name.startswith("ds:"):
            want.append(("second seed, per data set", f"| {TITLES[name[3:]]} | {g['cells']} | {share(g['differ'], g['cells'])} | {share(g['w1'], g['pub'])} | {share(g['w2'], g['pub'])} |"))
            continue
        label = "**all**" if name == "all" else name
        want.append(("second seed table", f"| {label} | {g['cells']} | {share(g['differ'], g['cells'])} | {g['left']} | {g['entered']} |"))
        if name == "all":
            want.append(("second seed, per data set", f"| **all** | {g['cells']} | {share(g['differ'], g['cells'])} | {share(g['w1'], g['pub'])} | {share(g['w2'], g['pub'])} |"))
    a = by["all"]
    want.append(("second seed", f"Of the {a['cells']} cells both have, {share(a['differ'], a['cells'])} differ between the two seeds"))
    want.append(("second seed", f"{share(a['w1'], a['pub'])} of their published cells are within the tolerance under the main seed and {share(a['w2'], a['pub'])} under the second; {a['left']} leave the tolerance and {a['entered']} enter it"))
    top = max((g for n, g in by.items() if n.startswith("ds:")), key=lambda g: g["differ"] / g["cells"])
    top_name = next(TITLES[n[3:]] for n, g in by.items() if g is top)
    want.append(("second seed", f"{top_name} moves most: {share(top['differ'], top['cells'])} of its cells differ between the seeds, and {top['w1']} of its {top['pub']} published cells are within the tolerance under the main seed against {top['w2']} under the second."))
    want.append(("conclusion", f"A second seed moves {a['left'] + a['entered']} of {a['pub']} published cells across the tolerance, and {share(a['differ'], a['cells'])} of the cells both seeds have differ"))

    # The report's result tables, cell by cell: ours (with the dagger where outside the tolerance, stars and
    # bold) and the paper's line below.
    main_marks = marks(d("results")) + ({r[0]: r[6] for r in main_rows},)
    pm_marks = None
    if os.path.isdir(d("results-paper-mode")):
        pm_marks = marks(d("results-paper-mode")) + ({r[0]: r[6] for r in compare(pm_c, pub, read_bounds(d("results-paper-mode")))},)
    cells_m, stars, bold, within = main_marks
    cell_re = re.compile(r"^(?:\\outside\{)?(?:\\textbf\{)?(-?\d+\.\d+) \$\\pm\$ (\d+\.\d+)\}?(\**)\}?$")
    tex_checked, tex_bad, table, model = 0, [], None, ""
    for line in open(args.tex):
        lm = re.search(r"\\label\{tab:(paper-mode-)?results-(.+?)(-valid)?\}", line)
        if lm:
            if lm.group(1) and pm_marks is None:
                table = None
                continue
            cells_m, stars, bold, within = pm_marks if lm.group(1) else main_marks
            table, model = (lm.group(2), "valid" if lm.group(3) else "all"), ""
            continue
        if table is None or " & " not in line:
            continue
        if line.startswith("\\end{longtable}"):
            table = None
            continue
        parts = [p.strip() for p in line.rstrip().rstrip("*").rstrip("\\").split(" & ")]
        if len(parts) != 8 or parts[1] in ("Generator", ""):
            continue
        if parts[0]:
            model = parts[0]
        paper_line = parts[1].startswith("\\paperline{paper")
        for metric, cell in zip(METRICS, parts[2:]):
            if paper_line:
                if parts[1] == "\\paperline{paper: none}":
                    continue
                k = (table[0], table[1], model, prev_gen, metric)
                c = re.match(r"^\\paperline\{(-?\d+\.\d+) \$\\pm\$ (\d+\.\d+)\}$", cell)
                p = pub.get(k)
                tex_checked += 1
                if not c or p is None or c.group(1) != f"{p[0]:.{p[2]}f}" or c.group(2) != f"{p[1]:.{p[2]}f}":
                    tex_bad.append((k, "paper", cell, p))
                continue
            k = (table[0], table[1], model, parts[1], metric)
            c = cell_re.match(cell)
            tex_checked += 1
            if not c or k not in cells_m:
                tex_bad.append((k, cell))
                continue
            dec = len(c.group(1).split(".")[1])
            m, sd = cells_m[k]
            outside = k in within and not within[k]
            if c.group(1) != f"{m:.{dec}f}" or c.group(2) != f"{sd:.{dec}f}" or len(c.group(3)) != stars[k] or \
                    ("\\textbf{" in cell) != (k in bold) or cell.startswith("\\outside{") != outside:
                tex_bad.append((k, cell, f"{m:.{dec}f} ± {sd:.{dec}f}", stars[k], k in bold, outside))
        if not paper_line:
            prev_gen = parts[1]
    for b in tex_bad[:10]:
        print(f"report table: differs: {b}")
    print(f"{args.tex}: {tex_checked - len(tex_bad)} of {tex_checked} cells of the result tables (ours and the paper's lines) recounted")

    cmp_bad = 0
    for name in ("results", "results-replay-only", "results-paper-mode", "results-seed43"):
        n, missing = check_comparison(d(name), pub)
        for m in missing[:5]:
            print(f"{name}/comparison.md: missing {m!r}")
        print(f"paper/{name}/comparison.md: {n - len(missing)} of {n} recounted rows found")
        cmp_bad += len(missing)

    bad = len(tex_bad) + (tex_checked == 0) + cmp_bad
    for w in want:
        where, s, times = w if len(w) == 3 else (*w, 1)
        if md.count(s) < times:
            bad += 1
            print(f"report ({where}): missing {s!r}" + (f" (wanted {times} times, found {md.count(s)})" if times > 1 else ""))
    print(f"{args.report}: {len(want) - (bad - len(tex_bad) - (tex_checked == 0) - cmp_bad)} of {len(want)} recounted strings found")

    # The figure captions against the criteria archived beside the gallery's images.
    fchecked, fproblems = check_figure_captions(md, os.path.join(ROOT, "figures", "gallery"), os.path.join(ROOT, "figures", "README.md"))
    for p_ in fproblems:
        print(f"report (figure captions): {p_}")
    print(f"{args.report}: {fchecked} figure captions checked against their archived criteria, {len(fproblems)} problems")
    bad += len(fproblems) + (fchecked == 0)

    # The README's headline paragraph.
    fmt = lambda n: f"{n:,}"
    rwant = [
        f"{fmt(t['within'])} of the paper's {fmt(t['cells'])} published cells ({pct(t['within'], t['cells'])})",
        f"{fmt(t['floor'])} of them only by the rounding floor ({fmt(t['strict'])}, {pct(t['strict'], t['cells'])}, within mean ± 3 sd strictly)",
        f"without the {t['cells'] - t['open']} cells fixed by construction (the validity of valid counterfactuals), {fmt(t['open_within'])} of {fmt(t['open'])} ({pct(t['open_within'], t['open'])})",
        f"agrees with the paper's for {sg['unfaithfulness'][0]} of {sg['unfaithfulness'][1]} data set × model pairs, with {sg['unfaithfulness'][2]} ties",
        f"{sg['implausibility'][0]} of {sg['implausibility'][1]}, {sg['implausibility'][2]} tie",
        f"All {t['misses']} misses are significant" if t["sig"] >= t["misses"] else f"{t['sig']} of the {t['misses']} misses are significant",
        f"the least {t['minz']:.1f}",
        f"{causes.get('unexplained', 0)} of them ({pct(causes.get('unexplained', 0), t['misses'])}) are unexplained",
        f"{fmt(tr['within'])} of {fmt(tr['cells'])} ({pct(tr['within'], tr['cells'])}) are within",
        f"moves {a['left'] + a['entered']} of their {fmt(a['pub'])} cells across the tolerance and {a['differ']} of {fmt(a['cells'])} by |z| > 3",
    ]
    rwant.append(f"({top_name} most: {top['differ']} of its {top['cells']}, and {pct(top['w1'], top['pub']).replace(' %', '')} → {pct(top['w2'], top['pub'])} within")
    # The claims' verdicts (the findings beside the report's source, which recount_findings.py recounts).
    c1 = fj["Claims"][0]
    f0, fp = c1["Findings"][0], c1["Findings"][-1]
    holds = sum(1 for c in fj["Claims"] if c["Findings"][0]["Verdict"] == "holds")
    rwant.append(f"In the authors' code {holds} of the paper's {len(fj['Claims'])} claims hold")
    rwant.append(f"{f0['For']} of {f0['For'] + f0['Against'] + f0['Neither']} pairs count for it, {'none' if f0['Against'] == 0 else f0['Against']} against, and in {f0['Neither']} the difference")
    rwant.append(f"the published tables give the same {fp['For']} of {fp['For'] + fp['Against'] + fp['Neither']}" if fp["For"] == f0["For"] else f"the published tables give {fp['For']} of {fp['For'] + fp['Against'] + fp['Neither']}")
    pm_rows = compare(pm_c, pub, read_bounds(d("results-paper-mode")))
    pw = sum(r[6] for r in pm_rows)
    rwant.append(f"{fmt(pw)} of {fmt(len(pm_rows))} ({pct(pw, len(pm_rows))}) of the published cells they cover")
    dm = [r for r in main_rows if r[0] in disc]
    rwant.append(f"Only {fmt(len(dm))} of the {fmt(len(main_rows))} cells can tell the generators apart")
    rwant.append(f"of these {fmt(sum(r[6] for r in dm))} ({pct(sum(r[6] for r in dm), len(dm))}) are within")
    sro = signs(ro_c, pub)
    rwant.append(f"ECCCo − Wachter has the paper's sign for {sro['unfaithfulness'][0]} of {sro['unfaithfulness'][1]} pairs ({sro['unfaithfulness'][2]} ties)")
    rbad = 0
    flat = " ".join(readme.split())
    for s in rwant:
        if s not in flat:
            rbad += 1
            print(f"README: missing {s!r}")
    print(f"{args.readme}: {len(rwant) - rbad} of {len(rwant)} recounted strings found")
    sys.exit(1 if bad or rbad else 0)


if __name__ == "__main__":
    main()
