"""Adapters for Opacus's noise step (``pip install 'dp-audit[opacus]'``; needs PyTorch).

One DP-SGD step adds Gaussian noise to the sum of the clipped per-sample gradients:
``DPOptimizer.add_noise`` sets ``p.grad = p.summed_grad + _generate_noise(std=σ·C, ...)``, with
``σ`` the noise multiplier and ``C`` the clipping norm.  Adding or removing one example moves
that sum by at most ``C`` in L2 norm, so without subsampling the step is the Gaussian mechanism
with L2 sensitivity ``C`` and noise ``σ·C``: exactly ``(1/σ)``-GDP, the claim audited here (the
curve Opacus's accountants bound for one step at sample rate 1).

The query is the summed clipped gradient (a float32 vector, as PyTorch holds it); one call
draws the noise of ``n`` steps at once through the same function ``add_noise`` calls, on a
reference tensor of shape (n, d), and adds it in float32 as ``add_noise`` does.  ``secure_mode``
is Opacus's defence against attacks on the Gaussian sampler (Holohan & Braghin 2021: four
draws summed and halved); it does not change how the sum is rounded.

Opacus is imported lazily; :func:`builtin_adapters` raises ``ImportError`` when it is missing
(the loader reports it as skipped).

References:
    Opacus, https://opacus.ai (``opacus.optimizers.optimizer``: ``_generate_noise``,
    ``DPOptimizer.add_noise``); Dong, Roth, Su, "Gaussian differential privacy" (JRSS-B 2022);
    Opacus issue #616 (floating-point noise, also with ``secure_mode``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import NamedRepr, module_source

__all__ = ["NoiseStep", "builtin_adapters"]


class NoiseStep(NamedRepr):
    """Opacus's Gaussian noise on a summed clipped gradient of ``d`` float32 entries."""

    library = "opacus"
    input_kind = "vector"
    norm = "l2"
    output_kind = "real"
    output_length = "query"
    vectorised = True

    def __init__(
        self,
        noise_multiplier: float = 1.0,
        max_grad_norm: float = 1.0,
        secure_mode: bool = False,
        d: int = 10,
    ) -> None:
        from auditor.core.claim_kinds import GaussianDP

        if not noise_multiplier > 0 or not max_grad_norm > 0:
            raise ValueError(
                f"noise_multiplier={noise_multiplier!r} and max_grad_norm={max_grad_norm!r} "
                "must be > 0"
            )
        self.library_version = installed_version("opacus")
        self.noise_multiplier, self.max_grad_norm = float(noise_multiplier), float(max_grad_norm)
        self.secure_mode = bool(secure_mode)
        self.sensitivity = self.max_grad_norm
        self.query_length = as_integer(d, "d")
        self.claim = GaussianDP(1.0 / self.noise_multiplier)
        self.epsilon, self.delta = self.claim.epsilon, self.claim.delta
        self.name = "opacus.noise_step" + (".secure" if self.secure_mode else "")
        self.description = (
            f"opacus DPOptimizer.add_noise: summed clipped gradient (float32) + "
            f"_generate_noise(std = noise_multiplier {self.noise_multiplier:g} x max_grad_norm "
            f"{self.max_grad_norm:g}, secure_mode={self.secure_mode}); one step without "
            f"subsampling, claim {1.0 / self.noise_multiplier:g}-GDP"
        )
        self._generator: Any = None

    def seed(self, entropy: int) -> None:
        """Re-seed: the noise is drawn from a ``torch.Generator`` seeded with ``entropy``."""
        import torch

        self._generator = torch.Generator().manual_seed(int(entropy) % 2**63)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` noisy steps on the summed gradient ``query``: float32, shape (n, d)."""
        import torch
        from opacus.optimizers.optimizer import _generate_noise

        summed = torch.as_tensor(np.asarray(query, dtype=np.float32))
        if summed.ndim != 1 or summed.numel() == 0:
            raise ValueError(f"query must be a non-empty 1-D vector, got shape {summed.shape}")
        reference = torch.empty((n, summed.numel()), dtype=torch.float32)
        noise = _generate_noise(
            std=self.noise_multiplier * self.max_grad_norm,
            reference=reference,
            generator=self._generator,
            secure_mode=self.secure_mode,
        )
        out: np.ndarray = np.asarray((summed + noise).numpy())
        return out

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, drawing the same outputs (``seed`` and ``sample``
        as here, bitwise)."""
        return module_source(
            self,
            [
                "import numpy as np",
                "import torch",
                "from opacus.optimizers.optimizer import _generate_noise",
            ],
            f"""
            NOISE_MULTIPLIER = {self.noise_multiplier!r}
            MAX_GRAD_NORM = {self.max_grad_norm!r}
            SECURE_MODE = {self.secure_mode!r}
            generator = None
            """,
            """
            def seed(entropy):
                global generator
                generator = torch.Generator().manual_seed(int(entropy) % 2**63)
            """,
            """
            def sample(query, n):
                summed = torch.as_tensor(np.asarray(query, dtype=np.float32))
                reference = torch.empty((n, summed.numel()), dtype=torch.float32)
                noise = _generate_noise(
                    std=NOISE_MULTIPLIER * MAX_GRAD_NORM,
                    reference=reference,
                    generator=generator,
                    secure_mode=SECURE_MODE,
                )
                return (summed + noise).numpy()
            """,
        )


def builtin_adapters() -> list[Any]:
    """Opacus's noise step, plain and in secure mode (raises ImportError without Opacus)."""
    import opacus  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [NoiseStep(), NoiseStep(secure_mode=True)]
