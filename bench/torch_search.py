"""Hand-vectorised PyTorch version of the benchmark's search: the whole batch of B factuals as one tensor,
autograd for the gradient, the loop of bench/gosearch (see bench/common.py and bench/README.md).

Usage: torch_search.py [--arch mnist,california] [-b 100,1000] [-k 3] [--threads 2] [--device cpu|cuda]
"""

import copy
import time

import torch
import torch.nn.functional as F

import common


def search(model, x0, target, lo, hi, steps=common.STEPS):
    """steps of gradient descent on CE(model(x'), target) + LAMBDA*||x' - x0||_1 for every row at once."""
    x = x0.clone().requires_grad_(True)
    for _ in range(steps):
        logits = model(x)
        # Summed over rows: each row's gradient is its own objective's.
        obj = F.cross_entropy(logits, target, reduction="sum") + common.LAMBDA * (x - x0).abs().sum()
        (grad,) = torch.autograd.grad(obj, x)
        with torch.no_grad():
            grad = torch.nan_to_num(grad, nan=0.0)  # NaN gradients count as 0, as in eccco-go
            x = (x - common.STEP_SIZE * grad).clamp_(lo, hi)
        x.requires_grad_(True)
    return x.detach()


def main():
    a = common.parse_args(__doc__)
    now = common.clock(a)
    impl = a.impl or f"pytorch-{torch.__version__.split('+')[0]}" + ("" if a.device == "cpu" else f"/{a.device}")
    where = f"torch.set_num_threads({torch.get_num_threads()})"
    if a.device != "cpu":
        where = f"on {a.device} ({torch.cuda.get_device_name(a.device)})"
    for arch in a.arch:
        model = common.mlp(arch)
        m = copy.deepcopy(model).to(a.device)  # Module.to moves in place: keep the CPU model for the factuals
        lo, hi = common.ARCHS[arch][4], common.ARCHS[arch][5]
        for b in a.b:
            x0, target = common.factuals(arch, model, b)  # drawn on the CPU: the same factuals on every device
            x0, target = x0.to(a.device), target.to(a.device)
            search(m, x0, target, lo, hi)  # warm-up
            common.sync(a.device)
            per = []
            for _ in range(a.k):
                t0 = now()
                search(m, x0, target, lo, hi)
                common.sync(a.device)
                per.append((now() - t0) / (b * common.STEPS) * 1e6)
            common.report(impl, arch, b, per, f"batched (one tensor), autograd, {where}")


if __name__ == "__main__":
    main()
