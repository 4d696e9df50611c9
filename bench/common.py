"""What the Python implementations of the speed benchmark share (see bench/README.md).

The workload, the same as bench/gosearch's: Wachter's objective (cross-entropy towards the target class
+ LAMBDA * ||x' - x||_1), plain gradient descent with step STEP_SIZE, x' clamped to the domain bounds after
every step, exactly STEPS steps (no early stopping), on two MLPs with fixed random weights (the paper's MNIST
MLP 784-32-10 and California Housing MLP 8-32-32-32-2, ReLU), factuals drawn uniformly from the domain, each
with target (predicted class + 1) mod K.

Every script prints one tab-separated line per (arch, B), as bench/gosearch does:

    impl  arch  B  steps_us  whole_us  setup_ms  repeats  note

steps_us: microseconds per counterfactual-iteration, wall time of the search loop / (factuals * STEPS), the
median over the repeats; whole_us: the same figure for the whole call (here the same: no compilation);
setup_ms: "-" (nothing is compiled; model construction is not timed).
"""

import argparse
import statistics
import time

import torch
from torch import nn

STEPS = 100
LAMBDA = 0.1
STEP_SIZE = 0.05

# name: (features, hidden width, hidden layers, classes, lower bound, upper bound)
ARCHS = {
    "mnist": (784, 32, 1, 10, -1.0, 1.0),
    "california": (8, 32, 3, 2, -4.0, 4.0),
}


def mlp(arch: str, seed: int = 1) -> nn.Module:
    """The architecture's MLP with fixed random weights (PyTorch's default initialisation), frozen."""
    d, h, layers, k, _, _ = ARCHS[arch]
    torch.manual_seed(seed)
    mods, width = [], d
    for _ in range(layers):
        mods += [nn.Linear(width, h), nn.ReLU()]
        width = h
    mods.append(nn.Linear(width, k))
    model = nn.Sequential(*mods)
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def factuals(arch: str, model: nn.Module, b: int, seed: int = 2):
    """b random factuals of the domain and their targets (predicted class + 1) mod K."""
    d, _, _, k, lo, hi = ARCHS[arch]
    g = torch.Generator().manual_seed(seed)
    x = lo + (hi - lo) * torch.rand(b, d, generator=g)
    with torch.no_grad():
        target = (model(x).argmax(dim=1) + 1) % k
    return x, target


def parse_args(doc: str, default_k: int = 3):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--arch", default="mnist,california", help="mnist (784-32-10), california (8-32-32-32-2)")
    ap.add_argument("-b", default="100,1000", help="batch sizes B, comma-separated")
    ap.add_argument("-k", type=int, default=default_k, help="repeats per (arch, B); figures are their medians")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--device", default="cpu",
                    help="torch device of the batched PyTorch search: cpu, or cuda (a GPU; the timing waits for "
                         "the device with torch.cuda.synchronize)")
    ap.add_argument("--impl", default="", help="name printed in the first column")
    ap.add_argument("--clock", default="wall", choices=["wall", "cpu"],
                    help="wall: elapsed time; cpu: the process's CPU time, all threads (time.process_time)")
    ap.add_argument("--factuals", type=int, default=0,
                    help="per-factual methods: time this many factuals and extrapolate (0: all B)")
    a = ap.parse_args()
    a.arch = [s.strip() for s in a.arch.split(",") if s.strip()]
    a.b = [int(s) for s in a.b.split(",") if s.strip()]
    torch.set_num_threads(a.threads)
    return a


def clock(a):
    """The timer of --clock: time.perf_counter (wall) or time.process_time (the process's CPU time)."""
    return time.process_time if a.clock == "cpu" else time.perf_counter


def sync(device: str):
    """Waits for the device's queued work, so that wall time measures it (a no-op on the CPU)."""
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def report(impl: str, arch: str, b: int, per_iter_us: list, note: str):
    m = statistics.median(per_iter_us)
    print(f"{impl}\t{arch}\t{b}\t{m:.3f}\t{m:.3f}\t-\t{len(per_iter_us)}\t{note}", flush=True)
