"""CARLA's Wachter (carla-recourse 0.0.5, carla/recourse_methods/catalog/wachter/library/wachter.py and
model.py) on the benchmark's workload (see bench/common.py and bench/README.md), one factual at a time as
CARLA searches.

carla-recourse 0.0.5 cannot be installed on Python 3.11: it pins tensorflow==1.14.0, torch==1.7.0 and
numpy==1.19.4, which have no Python 3.11 wheels, and `import carla` imports TensorFlow. Its Wachter loop
(wachter_recourse) is therefore re-implemented here line by line, with the changes the benchmark needs, each
marked "CHANGED" below:

  - exactly STEPS steps: CARLA's loop `while f_x_new <= 0.5 and it < n_iter` stops at the first valid
    step; here it runs `while it < n_iter`, the test f_x_new <= 0.5 still evaluated every step (as in CARLA,
    it reads a value back from the tensor), and the outer loop that lowers λ runs once;
  - the benchmark's optimiser, plain gradient descent (torch.optim.SGD), instead of CARLA's
    optim.Adam(amsgrad=True) (--optimizer adam-amsgrad runs CARLA's);
  - the cross-entropy towards the target class for K classes: CARLA's BCELoss on the model's two
    probabilities against y_target = one-hot target (binary models only) is -log p(target); for K = 2 the
    code below uses CARLA's BCELoss as it is, for K > 2 the same -log p(target) through NLLLoss.

What stays as CARLA wrote it: the model is called twice per step (once for f_x_new, once for the loss), the
encoding constraints are reconstructed (a clone when there are no categorical features), the cost is
torch.dist(x_new_enc, x, 1), and the clamp is CARLA's `x_new.clone().clamp_(0, 1)`, which clamps a copy
and leaves x_new as it was (the cost of a clamp, not its effect). CARLA's PyTorch models (MLModelCatalog)
end with a softmax: the benchmark's MLP is wrapped likewise. Factuals go through
DataFrame.apply(raw=True, axis=1), as Wachter.get_counterfactuals does.

Timed: the apply over --factuals N factuals (default 20). CARLA works one factual at a time, so its cost per
counterfactual-iteration does not depend on B: the figure is reported for every B.

Usage: carla_wachter.py [--arch mnist,california] [-b 100,1000] [-k 1] [--factuals 20]
"""

import argparse
import datetime
import sys
import time

import numpy as np
import pandas as pd
import torch
import torch.optim as optim
from torch import nn
from torch.autograd import Variable

import common

DECISION_THRESHOLD = 0.5
OPTIMIZER = "sgd"


def reconstruct_encoding_constraints(x, feature_pos, binary_cat):
    """carla/recourse_methods/processing/counterfactuals.py (no categorical features: a clone)."""
    x_enc = x.clone()
    if binary_cat:
        for pos in feature_pos:
            x_enc[:, pos] = torch.round(x_enc[:, pos])
    return x_enc


def wachter_recourse(torch_model, x, cat_feature_indices, binary_cat_features, feature_costs, lr,
                     lambda_param, y_target, n_iter, t_max_min, norm, clamp, loss_type):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)

    if feature_costs is not None:
        feature_costs = torch.from_numpy(feature_costs).float().to(device)

    x = torch.from_numpy(x).float().to(device)
    y_target = torch.tensor(y_target).float().to(device)
    lamb = torch.tensor(lambda_param).float().to(device)
    x_new = Variable(x.clone(), requires_grad=True)
    x_new_enc = reconstruct_encoding_constraints(x_new, cat_feature_indices, binary_cat_features)

    if OPTIMIZER == "adam-amsgrad":
        optimizer = optim.Adam([x_new], lr, amsgrad=True)
    else:
        optimizer = optim.SGD([x_new], lr)  # CHANGED: the benchmark's optimiser

    target_class = int(y_target.argmax())
    if loss_type == "BCE":
        loss_fn = torch.nn.BCELoss()
    else:  # CHANGED: "CE", -log p(target) for K > 2 classes
        nll = torch.nn.NLLLoss()
        target_t = torch.tensor([target_class])

        def loss_fn(probs, _y):
            return nll(torch.log(probs).unsqueeze(0), target_t)

    f_x_new = torch_model(x_new)[:, target_class]

    t0 = datetime.datetime.now()
    t_max = datetime.timedelta(minutes=t_max_min)
    it = 0
    while it < n_iter:  # CHANGED: CARLA's `while f_x_new <= 0.5 and it < n_iter` (no early stopping here)
        _ = bool(f_x_new <= 0.5)  # CARLA's loop test, evaluated and ignored
        optimizer.zero_grad()
        x_new_enc = reconstruct_encoding_constraints(x_new, cat_feature_indices, binary_cat_features)
        f_x_new = torch_model(x_new_enc)[:, target_class]
        f_x_loss = torch_model(x_new_enc).squeeze(axis=0)
        cost = (torch.dist(x_new_enc, x, norm) if feature_costs is None
                else torch.norm(feature_costs * (x_new_enc - x), norm))
        loss = loss_fn(f_x_loss, y_target) + lamb * cost
        loss.backward()
        optimizer.step()
        if clamp:
            x_new.clone().clamp_(0, 1)  # as CARLA: clamps a copy
        it += 1
    lamb -= 0.05
    if datetime.datetime.now() - t0 > t_max:
        pass  # CARLA logs a timeout here
    return x_new_enc.cpu().detach().numpy().squeeze(axis=0)


def main():
    global OPTIMIZER
    # --optimizer is this script's own flag; the rest are common's.
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--optimizer", choices=["sgd", "adam-amsgrad"], default="sgd")
    opts, rest = pre.parse_known_args()
    OPTIMIZER = opts.optimizer
    sys.argv = [sys.argv[0]] + rest
    a = common.parse_args(__doc__, default_k=1)
    now = common.clock(a)
    n = a.factuals or 20
    impl = a.impl or "carla-0.0.5-port" + ("-adam" if OPTIMIZER != "sgd" else "")
    for arch in a.arch:
        k = common.ARCHS[arch][3]
        mlp = common.mlp(arch)
        torch_model = nn.Sequential(mlp, nn.Softmax(dim=1)).eval()  # CARLA's models output probabilities
        x0, target = common.factuals(arch, mlp, max(a.b))
        cols = [f"x{j}" for j in range(x0.shape[1])]

        def run(rows):
            # Wachter.get_counterfactuals: DataFrame.apply(raw=True, axis=1) of wachter_recourse. CARLA's target
            # is one hyper-parameter for all factuals; here each factual has its own, taken in row order.
            df = pd.DataFrame(x0[rows].numpy(), columns=cols)
            targets = iter(target[rows].tolist())
            return df.apply(
                lambda r: wachter_recourse(
                    torch_model, r.reshape((1, -1)), [], binary_cat_features=True, feature_costs=None,
                    lr=common.STEP_SIZE, lambda_param=common.LAMBDA, y_target=np.eye(k)[next(targets)],
                    n_iter=common.STEPS, t_max_min=0.5, norm=1, clamp=True, loss_type="BCE" if k == 2 else "CE"),
                raw=True, axis=1)

        run(range(1))  # warm-up
        per = []
        for _ in range(a.k):
            t0 = now()
            run(range(n))
            per.append((now() - t0) / (n * common.STEPS) * 1e6)
        for b in a.b:
            common.report(impl, arch, b, per, f"per-factual: {n} factuals timed, extrapolated to B={b}")


if __name__ == "__main__":
    main()
