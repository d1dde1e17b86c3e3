#!/usr/bin/env python3
"""Independent check: three DP-SGD misconfigurations in Opacus break the epsilon its own
accountant reports, and the correct configuration does not (docs/training.md).

Standalone: uses only the Python standard library, numpy, scipy, torch and opacus.  It does
NOT import anything from dp-audit; the training is written again here.

Setup (as dp-audit's adapter ``opacus.training``): logistic regression, no bias, zero start,
63 synthetic records plus, on one side, a canary; batches of 32 (sample rate 1/2), 4 SGD
steps (2, one epoch, for fixed batches), ``loss_reduction="sum"``.  The canary's per-sample gradient is replaced, before Opacus
clips it, by 1000 * max_grad_norm in a coordinate no real record uses (a Dirac gradient
canary).  Observed: the noisy gradient in that coordinate at every step, in units of
max_grad_norm.

Test: a statistic fixed in advance per configuration; its threshold is chosen on a first
half of the trainings, and a second, fresh half is counted.  One-sided Clopper-Pearson limits
(scipy.stats.beta) at level a each give p0_lo <= P[S | canary] and p1_hi >= P[S | none]; the
accountant's statement (eps_k, delta_k) = (get_epsilon(delta_k), delta_k) is refuted when
p0_lo - exp(eps_k) p1_hi > delta_k.  Each configuration is tested at confidence 1 - 2a with
a = 1e-4 (1 - 8e-4 for all four, union bound).  Exit status 1 if any misconfiguration's
violation reproduces and the correct one is not flagged, 0 otherwise.

Run: ``python docs/findings/check_opacus_training_misconfigurations.py [trainings per half]``
"""

from __future__ import annotations

import math
import sys
import types
import warnings

import numpy as np
import torch
from opacus import PrivacyEngine
from opacus.optimizers.optimizer import _generate_noise
from scipy import stats

A = 1e-4
DELTAS = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 1e-2, 1e-3, 1e-4, 1e-5)
N, D, BATCH = 63, 4, 32


def data(shared):
    rng = np.random.default_rng(0)
    x = np.zeros((N, D + 1), dtype=np.float32)
    x[:, :D] = rng.normal(size=(N, D))
    y = (x[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(np.float32)
    if shared:
        x[:, D], y[:] = 1.0, 1.0
    return x, y


def add_noise_without_clip(self):
    for p in self.params:
        noise = _generate_noise(std=self.noise_multiplier, reference=p.summed_grad)
        p.grad = (p.summed_grad + noise).view_as(p)


def clip_after_sum(self):
    sums = [self._get_flat_grad_sample(p).sum(dim=0) for p in self.params]
    norm = torch.stack([s.norm(2) for s in sums]).norm(2)
    factor = (self.max_grad_norm / (norm + 1e-6)).clamp(max=1.0)
    for p, s in zip(self.params, sums, strict=True):
        p.summed_grad = factor * s


def train(config, canary, seed):
    sigma, clip, mistake, steps = config
    torch.manual_seed(seed)
    x, y = data(mistake == "clip-after-sum")
    flag = np.zeros(N + canary, dtype=np.float32)
    if canary:
        row = np.zeros((1, D + 1), dtype=np.float32)
        row[0, D] = 1.0
        x, y, flag[-1] = np.vstack([x, row]), np.append(y, np.float32(0)), 1.0
    dataset = torch.utils.data.TensorDataset(*(torch.as_tensor(v) for v in (x, y, flag)))
    shuffle = mistake == "fixed-batches"
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, shuffle=shuffle)
    model = torch.nn.Linear(D + 1, 1, bias=False)
    torch.nn.init.zeros_(model.weight)
    engine = PrivacyEngine(accountant="prv")
    model, opt, loader = engine.make_private(
        module=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        data_loader=loader,
        noise_multiplier=sigma,
        max_grad_norm=clip,
        poisson_sampling=not shuffle,
        loss_reduction="sum",
    )
    if mistake == "noise-without-clip":
        opt.add_noise = types.MethodType(add_noise_without_clip, opt)
    if mistake == "clip-after-sum":
        opt.clip_and_accumulate = types.MethodType(clip_after_sum, opt)
    w, out, batches = model._module.weight, [], iter(())
    for _ in range(steps):
        opt.zero_grad()
        batch = next(batches, None)
        if batch is None:
            batches = iter(loader)
            batch = next(batches)
        xb, yb, fb = batch
        torch.nn.functional.binary_cross_entropy_with_logits(
            model(xb).squeeze(-1), yb, reduction="sum"
        ).backward()
        rows = (fb > 0).nonzero().flatten()
        if len(rows):
            w.grad_sample[rows] = 0.0
            w.grad_sample[rows, 0, D] = 1000.0 * clip
        opt.step()
        out.append(float(w.grad[0, D]) / clip)
    return np.round(np.array(out) * 256) / 256, engine.accountant


def statistic(mistake, out):
    if mistake == "fixed-batches":  # the canary is in one step of each two-step epoch
        return out.reshape(len(out), -1, 2).max(axis=2).min(axis=1)
    return out.sum(axis=1)


def refuted(k0, k1, n, claims):
    p0 = stats.beta.ppf(A, k0, n - k0 + 1) if k0 > 0 else 0.0
    p1 = stats.beta.ppf(1 - A, k1 + 1, n - k1) if k1 < n else 1.0
    return max((p0 - math.exp(e) * p1 - d, e, d) for e, d in claims)


def check(name, config, n):
    outs = {}
    for canary in (1, 0):
        runs = [train(config, canary, 10**6 * canary + s) for s in range(2 * n)]
        outs[canary] = statistic(config[2], np.array([r[0] for r in runs]))
    acct = runs[0][1]
    claims = [(max(0.0, acct.get_epsilon(delta=d)), d) for d in DELTAS]
    grid = np.quantile(np.concatenate([outs[1][:n], outs[0][:n]]), np.linspace(0.02, 0.98, 49))
    best = max(
        grid, key=lambda t: refuted((outs[1][:n] > t).sum(), (outs[0][:n] > t).sum(), n, claims)[0]
    )
    k0, k1 = int((outs[1][n:] > best).sum()), int((outs[0][n:] > best).sum())
    gap, eps, delta = refuted(k0, k1, n, claims)
    print(
        f"{name:20} S = stat > {best:.3f}: canary {k0}/{n}, none {k1}/{n}; "
        f"accountant ({eps:.3f}, {delta:g}): {'REFUTED' if gap > 0 else 'holds'} ({gap:+.4f})",
        flush=True,
    )
    return gap > 0


def main():
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    configs = {
        "correct": (1.0, 1.0, "correct", 4),
        "fixed-batches": (0.3, 1.0, "fixed-batches", 2),
        "noise-without-clip": (1.0, 2.0, "noise-without-clip", 4),
        "clip-after-sum": (1.0, 1.0, "clip-after-sum", 4),
    }
    found = {name: check(name, config, n) for name, config in configs.items()}
    ok = not found["correct"] and all(v for k, v in found.items() if k != "correct")
    print("VIOLATIONS REPRODUCED" if ok else "NOT REPRODUCED")
    sys.exit(1 if ok else 0)


if __name__ == "__main__":
    main()
