"""DiCE's gradient method (dice-ml, DicePyTorch) on the benchmark's workload (see bench/common.py and
bench/README.md), one factual at a time as DiCE searches.

DiCE explains binary classifiers whose PyTorch model outputs one probability. Each factual's model is the
benchmark's MLP turned into "target class vs the rest": u in [0, 1]^D (DiCE's normalised domain) is mapped to
the architecture's domain, x = lo + (hi - lo) * u, and the model outputs softmax(MLP(x))[target]; DiCE is asked
for desired_class=1. DiCE's settings that make its objective Wachter's: one counterfactual (total_CFs=1, so no
diversity term), yloss_type="log_loss" (-log p(target), the cross-entropy), proximity_weight=LAMBDA with unit
feature weights (DiCE divides its L1 distance by D), min_iter=max_iter=STEPS (no early stopping), no post-hoc
sparsity step, starting at the factual (init_near_query_instance). DiCE offers only Adam and RMSprop; for the
benchmark's shared optimiser its optimizer is replaced by plain gradient descent (torch.optim.SGD, step
STEP_SIZE): one line (DicePyTorchSGD). Everything else (its per-feature Python loops for the clamp and the
rounding, its per-step prediction of the rounded counterfactual) is DiCE's own code, run as it is.

Timed: each factual's generate_counterfactuals call (the Dice object and the data interface are built once,
outside the timing). DiCE works one factual at a time, so its cost per counterfactual-iteration does not
depend on B: --factuals N (default 5) factuals are timed and the figure is reported for every B.

Usage: dice_search.py [--arch mnist,california] [-b 100,1000] [-k 1] [--factuals 5]
"""

import contextlib
import io
import logging
import time
import warnings

import numpy as np
import pandas as pd
import torch
from torch import nn

import dice_ml
from dice_ml.explainer_interfaces.dice_pytorch import DicePyTorch
from raiutils.exceptions import UserConfigValidationException

import common


class TargetVsRest(nn.Module):
    """p(target | lo + (hi - lo) * u) of the benchmark's MLP, as one output (DiCE's binary model)."""

    def __init__(self, mlp, lo, hi):
        super().__init__()
        self.mlp, self.lo, self.hi, self.target = mlp, lo, hi, 1

    def forward(self, u):
        p = torch.softmax(self.mlp(self.lo + (self.hi - self.lo) * u), dim=-1)
        return p[..., self.target : self.target + 1]


class DicePyTorchSGD(DicePyTorch):
    """DiCE's PyTorch explainer with plain gradient descent (the benchmark's optimiser) instead of Adam."""

    def do_optimizer_initializations(self, optimizer, learning_rate):
        self.optimizer = torch.optim.SGD(self.cfs, lr=learning_rate)


def main():
    a = common.parse_args(__doc__, default_k=1)
    now = common.clock(a)
    n = a.factuals or 5
    impl = a.impl or "dice-ml-0.12"
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    for arch in a.arch:
        d, _, _, k, lo, hi = common.ARCHS[arch]
        mlp = common.mlp(arch)
        model = TargetVsRest(mlp, lo, hi)
        cols = [f"x{j}" for j in range(d)]
        rng = np.random.default_rng(3)
        # DiCE's data interface needs a data frame (its ranges: [0, 1], DiCE's normalised domain).
        train = pd.DataFrame(rng.random((200, d)).round(4), columns=cols)
        train["y"] = rng.integers(0, 2, 200)
        train.loc[0, cols], train.loc[1, cols] = 0.0, 1.0
        data = dice_ml.Data(dataframe=train, continuous_features=cols, outcome_name="y",
                             continuous_features_precision={c: 4 for c in cols})
        explainer = DicePyTorchSGD(data, dice_ml.Model(model=model, backend="PYT"))
        x0, target = common.factuals(arch, mlp, max(a.b))
        u0 = ((x0 - lo) / (hi - lo)).numpy().round(4)
        queries = [pd.DataFrame(u0[i : i + 1], columns=cols) for i in range(n)]

        def explain(i):
            model.target = int(target[i])
            # DiCE prints a line per factual and a progress bar, and raises when no counterfactual is valid
            # (the search has run by then).
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    explainer.generate_counterfactuals(
                        queries[i], total_CFs=1, desired_class=1, proximity_weight=common.LAMBDA,
                        diversity_weight=0.0, yloss_type="log_loss", feature_weights={},
                        learning_rate=common.STEP_SIZE, min_iter=common.STEPS, max_iter=common.STEPS,
                        posthoc_sparsity_param=None, init_near_query_instance=True, verbose=False)
                except UserConfigValidationException:
                    pass
            if explainer.max_iterations_run != common.STEPS:
                raise RuntimeError(f"DiCE ran {explainer.max_iterations_run} steps, want {common.STEPS}")

        explain(0)  # warm-up
        per = []
        for _ in range(a.k):
            t0 = now()
            for i in range(n):
                explain(i)
            per.append((now() - t0) / (n * common.STEPS) * 1e6)
        for b in a.b:
            common.report(impl, arch, b, per, f"per-factual: {n} factuals timed, extrapolated to B={b}")


if __name__ == "__main__":
    main()
