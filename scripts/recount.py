#!/usr/bin/env python3
"""recount.py: an independent recount of a committed table set, in plain Python (no eccco code).

Usage: scripts/recount.py [DIR ...]            (default: paper/results paper/results-replay-only paper/results-seed43)

For each table set DIR (cells.csv, comparison.md, and run-means.csv.gz where archived):
  1. where run-means.csv.gz exists, every archived cell's mean, sd and run count are recomputed from the run
     means (mean of the runs' means, sample sd; runs with n = 0 left out) and must equal cells.csv's exactly;
  2. the cells are compared with the published numbers (paper/published-results.csv) by the rules the
     report states, h being half the last decimal the paper printed the cell with (the decimals column:
     0.005 for the appendix's two decimals, 0.0005 for the 20 cells of Table 2 printed to three): within
     when |ours - paper| <= max(3 sd, 3 h), strictly within when <= 3 sd, a miss otherwise; the validity of
     valid counterfactuals is fixed by construction; Welch's z with the published sd floored at h and the
     paper's 50 runs (10 for MNIST and Fashion-MNIST); the signs of
     ECCCo - Wachter (unfaithfulness) and REVISE - Wachter (implausibility) per data set and model
     ("all" subset), a tie where the published difference prints as 0.00;
  3. the counts are printed and compared with the headline of DIR/comparison.md number by number;
  4. every cell of DIR's .tex tables is read back: its mean and sd must be cells.csv's rounded to the printed
     decimals, and its stars and bold the tables' rule recomputed (check_tex).
Exit status 1 if any number differs.
"""
import csv, gzip, math, os, re, sys

SLACK = 1e-9


def mean_sd(v):
    if not v:
        return math.nan, math.nan
    s = 0.0
    for x in v:
        s += x
    m = s / len(v)
    if len(v) == 1:
        return m, 0.0
    ss = 0.0
    for x in v:
        ss += (x - m) * (x - m)
    return m, math.sqrt(ss / (len(v) - 1))


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def check_archive(d, cells):
    path = os.path.join(d, "run-means.csv.gz")
    if not os.path.exists(path):
        return 0, 0, []
    runs = {}
    with gzip.open(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            k = (r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])
            runs.setdefault(k, [])
            if int(r["n"]) > 0:
                runs[k].append(float(r["mean"]))
    bad = []
    for k, v in runs.items():
        c = cells.get(k)
        m, s = mean_sd(v)
        if c is None or not (same(m, c[0]) and same(s, c[1]) and len(v) == c[2]):
            bad.append((k, (m, s, len(v)), c))
    sets = sorted({k[0] for k in runs})
    return len(runs), sum(len(v) for v in runs.values()), bad if bad else sets


def paper_runs(ds):
    return 10 if ds in ("mnist", "fashion-mnist") else 50


def recount(d, published):
    cells = {}
    with open(os.path.join(d, "cells.csv"), newline="") as f:
        for r in csv.DictReader(f):
            k = (r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])
            cells[k] = (float(r["mean"]), float(r["std"]), int(r["runs"]))
    n_cells, n_runs, arch = check_archive(d, cells)
    out = {}
    if n_cells:
        if arch and isinstance(arch[0], tuple):
            print(f"{d}: {len(arch)} archived cells differ from cells.csv, e.g. {arch[0]}")
            out["archive_bad"] = len(arch)
        else:
            print(f"{d}: run-means.csv.gz: {n_runs} run means of {n_cells} cells ({', '.join(arch)}) give cells.csv's mean, sd and runs exactly")
    rows = []
    for k, (m, s, n) in cells.items():
        p = published.get(k)
        if p is None or math.isnan(m):
            continue
        rows.append((k, m, s, n, p[0], p[1], 0.5 * 10 ** -p[2]))

    def tally(rs):
        t = dict(cells=len(rs), within=0, strict=0, floor=0, miss=0, sig=0, sigmiss=0, minz=math.inf)
        for k, m, s, n, pm, ps, h in rs:
            diff = abs(m - pm)
            w = diff <= max(3 * ps, 3 * h) + SLACK
            st = diff <= 3 * ps + SLACK
            t["within"] += w
            t["strict"] += st
            t["floor"] += w and not st
            t["miss"] += not w
            z = math.nan
            if n >= 2 and not math.isnan(s):
                z = abs((m - pm) / math.sqrt(s * s / n + max(ps, h) ** 2 / paper_runs(k[0])))
            if z > 3:
                t["sig"] += 1
                t["sigmiss"] += not w
            if not w and not math.isnan(z):
                t["minz"] = min(t["minz"], z)
        return t

    allt = tally(rows)
    opent = tally([r for r in rows if not (r[0][1] == "valid" and r[0][4] == "validity")])
    signs = {}
    for metric, gen in (("unfaithfulness", "ECCCo"), ("implausibility", "REVISE")):
        agree = dis = ties = 0
        pairs = sorted({(k[0], k[2]) for k in cells if k[1] == "all"})
        for ds, model in pairs:
            a, w = (ds, "all", model, gen, metric), (ds, "all", model, "Wachter", metric)
            if a in cells and w in cells and a in published and w in published and not math.isnan(cells[a][0]) and not math.isnan(cells[w][0]):
                ours, paper = cells[a][0] - cells[w][0], published[a][0] - published[w][0]
                if abs(paper) < 0.005 - SLACK:
                    ties += 1
                elif (ours > 0) == (paper > 0) and ours != 0:
                    agree += 1
                else:
                    dis += 1
        signs[metric] = (agree, agree + dis, ties)
    pct = lambda a, b: round(100 * a / b)
    line = (f"{allt['within']} of {allt['cells']} cells ({pct(allt['within'], allt['cells'])} %) within, {allt['floor']} of them only by the floor 3h; "
            f"{allt['strict']} of {allt['cells']} strictly; without the {allt['cells'] - opent['cells']} cells fixed by construction: "
            f"{opent['within']} of {opent['cells']} within, {opent['strict']} of {opent['cells']} strictly; "
            f"unfaithfulness signs {signs['unfaithfulness'][0]} of {signs['unfaithfulness'][1]} agree, {signs['unfaithfulness'][2]} ties; "
            f"implausibility signs {signs['implausibility'][0]} of {signs['implausibility'][1]} agree, {signs['implausibility'][2]} ties; "
            f"{allt['miss']} misses, {allt['sigmiss']} significant (least |z| {allt['minz']:.1f}); {allt['sig']} cells with |z| > 3")
    print(f"{d}: {line}")
    # The headline of comparison.md, number by number.
    head = ""
    with open(os.path.join(d, "comparison.md")) as f:
        for l in f:
            if " within the paper's mean" in l:
                head = l
                break
    want = [allt['within'], allt['cells'], allt['floor'], allt['strict'], allt['cells'], allt['cells'] - opent['cells'], opent['within'], opent['cells'], opent['strict'], opent['cells'],
            signs['unfaithfulness'][0], signs['unfaithfulness'][1], signs['unfaithfulness'][2], signs['implausibility'][0], signs['implausibility'][1], signs['implausibility'][2],
            allt['miss'], allt['sig'], allt['cells']]
    pat = (r"(\d+) of (\d+) cells \(\d+ %\) within.*?(\d+) of them only by the floor 3h; (\d+) of (\d+) \(\d+ %\) within mean ± 3 sd strictly; "
           r"without the (\d+) cells fixed by construction: (\d+) of (\d+) cells \(\d+ %\) rounding-aware, (\d+) of (\d+) \(\d+ %\) strictly; "
           r"sign of ECCCo − Wachter \(unfaithfulness\): (\d+) of (\d+) agree(?:, (\d+) ties?[^;]*)?; of REVISE − Wachter \(implausibility\): (\d+) of (\d+) agree(?:, (\d+) ties?[^;]*)?; "
           r"(\d+) misses.*?; (\d+) of (\d+) cells")
    mm = re.search(pat, head)
    if not mm:
        print(f"{d}: FAIL: comparison.md's headline not found or not in the expected words")
        return False
    got = [int(x) if x is not None else 0 for x in mm.groups()]  # no ties: the headline leaves them out
    ok = got == want and not out.get("archive_bad")
    if got != want:
        print(f"{d}: FAIL: comparison.md prints {got}, the recount gives {want}")
    else:
        print(f"{d}: comparison.md's headline: all {len(want)} numbers equal the recount")
    return ok


TEX_METRICS = ["unfaithfulness", "implausibility", "uncertainty", "cost", "redundancy", "validity"]
HIGHER = {"redundancy", "validity"}
TEX_CELL = re.compile(r"^(\\textbf\{)?(-?\d+\.\d+) \$\\pm\$ (\d+\.\d+)\}?(\**)$")


def marks(d):
    """The cells of d's cells.csv (mean, sd) with the stars and bold the tables' rule gives them: more than 1 / 2
    pooled sd, sqrt((sd^2 + sd_W^2) / 2), better than Wachter of the same data set, subset, model and metric;
    bold the best generator (the first of equal ones in cells.csv's order)."""
    cells, order = {}, []
    with open(os.path.join(d, "cells.csv"), newline="") as f:
        for r in csv.DictReader(f):
            k = (r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])
            cells[k] = (float(r["mean"]), float(r["std"]))
            order.append(k)
    stars, best = {}, {}
    for k in order:
        m, s = cells[k]
        w = cells.get((k[0], k[1], k[2], "Wachter", k[4]))
        st = 0
        if w is not None and k[3] != "Wachter":
            pooled = math.sqrt((s * s + w[1] * w[1]) / 2)
            gain = w[0] - m if k[4] not in HIGHER else m - w[0]
            st = 2 if gain > 2 * pooled and gain > 0 else 1 if gain > pooled and gain > 0 else 0
        stars[k] = st
        if math.isnan(m):
            continue
        bk = (k[0], k[1], k[2], k[4])
        j = best.get(bk)
        if j is None or (k[4] in HIGHER and m > cells[j][0]) or (k[4] not in HIGHER and m < cells[j][0]):
            best[bk] = k
    bold = set(best.values())
    return cells, stars, bold


def check_tex(d):
    """Every table-*.tex of d against cells.csv: each printed mean and sd is cells.csv's rounded to the printed
    decimals; the stars are recomputed by the tables' rule (more than 1 / 2 pooled sd, sqrt((sd^2 + sd_W^2) / 2),
    better than Wachter of the same data set, subset, model and metric) and the bold marks the best generator
    (the first of equal ones in cells.csv's order). Returns (cells checked, list of differences)."""
    cells, stars, bold = marks(d)
    checked, bad = 0, []
    for name in sorted(os.listdir(d)):
        mm = re.match(r"table-(.+?)(-valid)?\.tex$", name)
        if not mm:
            continue
        ds, sub = mm.group(1), "valid" if mm.group(2) else "all"
        with open(os.path.join(d, name)) as f:
            for line in f:
                parts = [p.strip() for p in line.strip().rstrip("\\").split(" & ")]
                if len(parts) != 2 + len(TEX_METRICS) or parts[0] == "Model":
                    continue
                for metric, cell in zip(TEX_METRICS, parts[2:]):
                    k = (ds, sub, parts[0], parts[1], metric)
                    c = TEX_CELL.match(cell)
                    if k not in cells or not c:
                        bad.append((name, k, cell))
                        continue
                    checked += 1
                    dec = len(c.group(2).split(".")[1])
                    m, s = cells[k]
                    want_bold = k in bold
                    if c.group(2) != f"{m:.{dec}f}" or c.group(3) != f"{s:.{dec}f}" or len(c.group(4)) != stars[k] or bool(c.group(1)) != want_bold:
                        bad.append((name, k, cell, f"{m:.{dec}f} ± {s:.{dec}f}", stars[k], want_bold))
    return checked, bad


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = sys.argv[1:] or [os.path.join(root, "paper", x) for x in ("results", "results-replay-only", "results-seed43")]
    published = {}
    with open(os.path.join(root, "paper", "published-results.csv"), newline="") as f:
        for r in csv.DictReader(f):
            published[(r["dataset"], r["subset"], r["model"], r["generator"], r["metric"])] = (float(r["mean"]), float(r["std"]), int(r.get("decimals") or 2))
    ok = all([recount(d, published) for d in dirs])
    for d in dirs:
        n, bad = check_tex(d)
        for b in bad[:10]:
            print(f"{d}: FAIL: {b}")
        print(f"{d}: the .tex tables: {n} printed cells {'equal' if not bad else 'checked, ' + str(len(bad)) + ' differ from'} cells.csv rounded as printed, with the stars and bold recounted")
        ok = ok and not bad and n > 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
