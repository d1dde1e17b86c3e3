"""Independent check (imports nothing of dp-audit): Opacus's DP-SGD noise step, through the
public ``DPOptimizer``, breaks its Gaussian-mechanism guarantee in float32, with and without
``secure_mode``.

Setting: one parameter, ``max_grad_norm`` 1, ``noise_multiplier`` 1, no subsampling, so one
step is the Gaussian mechanism with L2 sensitivity 1 and noise 1: claimed 1-GDP.  D holds one
example with gradient 0; D' adds one example with gradient 1 (clipped to 0.999999).  The noisy
gradient ``p.grad`` after ``pre_step`` (clip, sum, noise) is the release.

Event E (fixed in advance from the float32 format): 0 < output < 0.5 and the output is not a
multiple of 2^-24.  On D' the output is 0.999999 + s in float32; below 0.5 that sum is exact
(Sterbenz) and both terms are multiples of 2^-24, so E is impossible.  On D the output is the
noise itself, which in [0.25, 0.5) is a multiple of 2^-25 only.

Exit status 1: the one-sided Clopper-Pearson limits (level 1e-6 each) put P_D'(E) below the
least value 1-GDP allows given P_D(E), i.e. the claim is violated.
"""

import sys

import numpy as np
import opacus
import scipy
import torch
from opacus.optimizers import DPOptimizer
from scipy import stats

N = 20_000
LEVEL = 1e-6


def steps(per_sample_grads: list[float], seed: int, secure: bool) -> np.ndarray:
    """N noisy steps: ``p.grad`` after ``DPOptimizer.pre_step``, one batch per step."""
    generator = torch.Generator().manual_seed(seed)
    p = torch.nn.Parameter(torch.zeros(1))
    optimizer = DPOptimizer(
        torch.optim.SGD([p], lr=1.0),
        noise_multiplier=1.0,
        max_grad_norm=1.0,
        expected_batch_size=len(per_sample_grads),
        loss_reduction="sum",
        generator=generator,
        secure_mode=secure,
    )
    out = np.empty(N, dtype=np.float32)
    for i in range(N):
        p.grad_sample = torch.tensor([[g] for g in per_sample_grads], dtype=torch.float32)
        optimizer.pre_step()
        out[i] = p.grad.item()
        optimizer.zero_grad(set_to_none=True)
    return out


def in_event(y: np.ndarray) -> np.ndarray:
    y = y.astype(np.float64)
    return (y > 0) & (y < 0.5) & (np.mod(y, 2.0**-24) != 0)


def main() -> int:
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"torch {torch.__version__}, opacus {opacus.__version__}"
    )
    violated = False
    for secure in (False, True):
        on_d = steps([0.0], seed=1, secure=secure)
        on_d_prime = steps([0.0, 1.0], seed=2, secure=secure)
        k0, k1 = int(in_event(on_d).sum()), int(in_event(on_d_prime).sum())
        p0_low = stats.beta.ppf(LEVEL, k0, N - k0 + 1)
        p1_high = stats.beta.ppf(1 - LEVEL, k1 + 1, N - k1)
        # mu-GDP: every event has P_D'(E) >= Phi(Phi^-1(P_D(E)) - mu), here mu = 1
        floor = stats.norm.cdf(stats.norm.ppf(p0_low) - 1.0)
        broken = p1_high < floor
        violated |= broken
        example = on_d[in_event(on_d)][:2].astype(np.float64)
        print(
            f"secure_mode={secure}: E on D {k0}/{N}, on D' {k1}/{N}; P_D(E) >= {p0_low:.4f} "
            f"so 1-GDP needs P_D'(E) >= {floor:.5f}, but P_D'(E) <= {p1_high:.6f}: "
            + ("VIOLATED" if broken else "not shown")
            + f"; examples on D: {', '.join(float(v).hex() for v in example)}"
        )
    print("RESULT: " + ("privacy claim violated" if violated else "nothing shown"))
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
