"""The bound of the speed benchmark: the same search as torch_search.py and bench/gosearch (see bench/common.py
and bench/README.md), in JAX, with the whole 100-step loop jitted as one jax.lax.fori_loop: one compiled XLA
program per search, no return to Python between steps.

It runs in bench/.venv-jax (bench/requirements-jax.txt; bench/run.sh makes it), which has JAX and its own
NumPy but no PyTorch, so it imports no torch and draws its own weights and factuals with NumPy: the same
architectures, PyTorch's default initialisation (weights and biases uniform in ±1/√fan_in) and factuals
uniform in the domain with target (predicted class + 1) mod K, from other random numbers than PyTorch's. The
values do not change the cost of a step.

Prints the lines of bench/common.py: impl arch B steps_us whole_us setup_ms repeats note; setup_ms is the
first call (tracing and compiling the loop, then running it) minus the median of the timed ones.

Usage: jax_search.py [--arch mnist,california] [-b 100,1000] [-k 3] [--impl NAME] [--clock wall|cpu]
"""

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

# The workload's constants, as in bench/common.py (which imports torch, absent from this venv).
STEPS = 100
LAMBDA = 0.1
STEP_SIZE = 0.05
# name: (features, hidden width, hidden layers, classes, lower bound, upper bound)
ARCHS = {
    "mnist": (784, 32, 1, 10, -1.0, 1.0),
    "california": (8, 32, 3, 2, -4.0, 4.0),
}


def mlp(arch, seed=1):
    """The architecture's layers [(W, b)], W of shape (in, out), PyTorch's default initialisation."""
    d, h, layers, k, _, _ = ARCHS[arch]
    rng = np.random.default_rng(seed)
    widths = [d] + [h] * layers + [k]
    params = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        w = rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)
        b = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
        params.append((jnp.asarray(w), jnp.asarray(b)))
    return params


def logits(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def factuals(arch, params, b, seed=2):
    """b random factuals of the domain and their targets (predicted class + 1) mod K."""
    d, _, _, k, lo, hi = ARCHS[arch]
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.uniform(lo, hi, (b, d)).astype(np.float32))
    target = (jnp.argmax(logits(params, x), axis=1) + 1) % k
    return x, target.astype(jnp.int32)


def objective(x, params, x0, target):
    """Wachter's objective summed over rows (each row's gradient is its own): CE towards the target + λ‖x′ − x‖₁."""
    logp = jax.nn.log_softmax(logits(params, x), axis=1)
    ce = -jnp.sum(jnp.take_along_axis(logp, target[:, None], axis=1))
    return ce + LAMBDA * jnp.sum(jnp.abs(x - x0))


def make_search(lo, hi, steps=STEPS):
    grad = jax.grad(objective)

    @jax.jit
    def search(params, x0, target):
        def step(_, x):
            g = jnp.nan_to_num(grad(x, params, x0, target), nan=0.0)  # NaN gradients count as 0, as in eccco-go
            return jnp.clip(x - STEP_SIZE * g, lo, hi)

        return jax.lax.fori_loop(0, steps, step, x0)

    return search


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="mnist,california", help="mnist (784-32-10), california (8-32-32-32-2)")
    ap.add_argument("-b", default="100,1000", help="batch sizes B, comma-separated")
    ap.add_argument("-k", type=int, default=3, help="repeats per (arch, B); figures are their medians")
    ap.add_argument("--impl", default="", help="name printed in the first column")
    ap.add_argument("--clock", default="wall", choices=["wall", "cpu"],
                    help="wall: elapsed time; cpu: the process's CPU time, all threads (time.process_time)")
    a = ap.parse_args()
    now = time.process_time if a.clock == "cpu" else time.perf_counter
    impl = a.impl or f"jax-{jax.__version__}"
    dev = jax.devices()[0]
    note = f"batched, the 100-step loop jitted as one lax.fori_loop, jaxlib {jax.lib.__version__} on {dev.platform}"
    for arch in [s.strip() for s in a.arch.split(",") if s.strip()]:
        params = mlp(arch)
        lo, hi = ARCHS[arch][4], ARCHS[arch][5]
        search = make_search(lo, hi)
        for b in [int(s) for s in a.b.split(",") if s.strip()]:
            x0, target = factuals(arch, params, b)
            t0 = now()
            search(params, x0, target).block_until_ready()  # trace, compile and run once
            first = now() - t0
            per = []
            for _ in range(a.k):
                t0 = now()
                search(params, x0, target).block_until_ready()
                per.append(now() - t0)
            m = statistics.median(per)
            us = m / (b * STEPS) * 1e6
            print(f"{impl}\t{arch}\t{b}\t{us:.3f}\t{us:.3f}\t{(first - m) * 1e3:.1f}\t{a.k}\t{note}", flush=True)


if __name__ == "__main__":
    main()
