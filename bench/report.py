"""Turns the raw lines of bench/run.sh (one per round, implementation, arch and B) into the results table.

Input (--raw): tab-separated lines `round impl arch B steps_us whole_us setup_ms repeats note`, as the
implementations print them with the round number in front. Input (--meta): `key: value` lines about the
machine and the run. Output: Markdown on stdout (bench/run.sh writes it to bench/results.md).

Per (impl, arch, B): the median over the rounds of each round's figure (itself a median over that round's
repeats), with the rounds' min and max; the ratios divide that median by the reference implementation's at
the same arch and B (> 1: slower than the reference). PyTorch's reference is its best thread count there (the
lower median of its 1- and 2-thread rows); JAX's, the loop compiled, is the bound. Standard library only.
"""

import argparse
import statistics
from collections import defaultdict

ARCH_NAMES = {"mnist": "MNIST MLP 784-32-10", "california": "California MLP 8-32-32-32-2"}


def fmt(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def ratio(a, b):
    if a is None or b is None or b <= 0 or a <= 0:
        return "–"
    r = a / b
    return f"{r:.2g}" if r < 10 else f"{r:,.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--meta", required=True)
    a = ap.parse_args()

    runs = defaultdict(list)  # (impl, arch, b) -> [(steps, whole, setup)]
    notes, order = {}, []
    with open(a.raw) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 9:
                continue
            _, impl, arch, b, steps, whole, setup, _, note = p[:9]
            key = (impl, arch, int(b))
            if impl not in order:
                order.append(impl)
            runs[key].append((float(steps), float(whole), None if setup == "-" else float(setup)))
            notes[impl] = note
    meta = []
    with open(a.meta) as f:
        for line in f:
            if ":" in line:
                k, v = line.split(":", 1)
                meta.append((k.strip(), v.strip()))

    med = {}
    for key, v in runs.items():
        setups = [s for _, _, s in v if s is not None]
        med[key] = (statistics.median(s for s, _, _ in v), min(s for s, _, _ in v), max(s for s, _, _ in v),
                    statistics.median(w for _, w, _ in v), statistics.median(setups) if setups else None, len(v))

    def ref(prefix, arch, b):
        """The lowest median of the implementations named prefix… at (arch, b): their best setting."""
        vs = [med[(impl, arch, b)][0] for impl in order
              if impl.startswith(prefix) and (impl, arch, b) in med and med[(impl, arch, b)][0] > 0]
        return min(vs) if vs else None

    out = []
    noisy = False
    out.append("| implementation | model | B | µs / CF-iteration | rounds' min–max | whole call µs | setup ms"
               " | ÷ PyTorch (best threads) | ÷ JAX (loop compiled) | ÷ CARLA | ÷ DiCE |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    archs = [x for x in ARCH_NAMES if any(k[1] == x for k in med)]
    for arch in archs:
        bs = sorted({k[2] for k in med if k[1] == arch})
        for b in bs:
            pt, jx, ca, di = ref("pytorch", arch, b), ref("jax", arch, b), ref("carla", arch, b), ref("dice", arch, b)
            for impl in order:
                if (impl, arch, b) not in med:
                    continue
                m, lo, hi, whole, setup, n = med[(impl, arch, b)]
                # A figure derived from the difference of two timings (steps-only from a 100- and a 1-step
                # search that both compile their graphs; a Searcher's setup from its first two searches minus two others)
                # can come out at or below zero when the difference is smaller than the timings' noise.
                shown = f"**{fmt(m)}**" if m > 0 else "below noise¹"
                if m <= 0 or (setup is not None and setup <= 0):
                    noisy = True
                setup_s = fmt(setup) if setup is None or setup > 0 else "below noise¹"
                out.append(f"| {impl} | {ARCH_NAMES[arch]} | {b:,} | {shown} | {fmt(lo)}–{fmt(hi)} |"
                           f" {fmt(whole)} | {setup_s} | {ratio(m, pt)} | {ratio(m, jx)} | {ratio(m, ca)} | {ratio(m, di)} |")
    print("\n".join(out))
    print()
    if noisy:
        print("¹ Derived from the difference of two timings, which came out at or below zero: smaller than the")
        print("timings' noise on this machine. The steps-only figure of a row without a Searcher subtracts a 1-step")
        print("search from a 100-step one, each compiling its graphs (hundreds of ms on XLA); the `+Searcher` rows")
        print("time the steps directly. A Searcher's setup is its first two searches (the second compiles the chunks of")
        print("several steps) minus twice the median of the others.")
        print()
    print("How each implementation searches:")
    print()
    for impl in order:
        print(f"- `{impl}`: {notes[impl].split(': ')[0] if impl.startswith(('carla', 'dice')) else notes[impl]}"
              + (f" ({notes[impl].split(': ')[1].split(',')[0]}, extrapolated to every B)"
                 if impl.startswith(("carla", "dice")) else ""))
    print()
    print("Machine and run:")
    print()
    for k, v in meta:
        print(f"- {k}: {v}")


if __name__ == "__main__":
    main()
