"""Whole DP-SGD trainings with Opacus, audited with a canary against the accountant's own claim
(``pip install 'dp-audit[opacus]'``; needs PyTorch).

One output is one training.  A logistic regression (no bias, weights starting at 0) is
trained with ``PrivacyEngine.make_private`` on ``n_examples`` synthetic records, for ``steps``
steps of plain SGD.  The input is one bit: the canary is absent (0) or present (1), so the two
neighbouring training sets differ by one record (add/remove, the relation Opacus's accountants
are stated for).  The canary is a *Dirac gradient canary* (Nasr et al. 2023): the canary
record carries a feature no real record has, and whenever it is sampled into a batch its
per-sample gradient is replaced, before Opacus clips it, by ``1000 * max_grad_norm`` in that
feature's weight and 0 elsewhere.  Opacus then clips it to ``max_grad_norm`` and the real
records never touch that coordinate, so each step's noisy update in it is the subsampled
Gaussian mechanism alone.

Threat models (``observe``):

* ``"steps"`` (white-box): every step's noisy summed gradient in the canary coordinate, in
  units of ``max_grad_norm`` (one real per step);
* ``"final"`` (black-box): only the final model's score (logit) on the canary's feature
  vector, in units of ``learning_rate * max_grad_norm`` and sign-flipped (one real).

Outputs are rounded to multiples of ``grid`` (post-processing: as private as the unrounded
release).  Without it the float32 sums leak through their low bits, the finding already
reported for one noise step (``docs/findings/2026-opacus-noise-step.md``); the rounding keeps
this audit on DP-SGD's statistics: sampling, clipping, noise and accounting.

The claim is what Opacus's accountant (``accountant = "prv"`` or ``"rdp"``) reports after the
training: ``get_epsilon(delta)`` at 27 deltas from 0.9 to 1e-10, as a delta(eps) privacy
profile (:class:`~auditor.core.claim_kinds.PrivacyProfile`).  It is read from a real run's
``privacy_engine.accountant`` (its recorded steps and sample rate), so a variant that makes
Opacus account wrongly is audited against what Opacus states.  Profiles are cached per
accountant history (the PRV accountant takes about 0.8 s per delta).

Variants (``variant``), each a configuration a user could write:

* ``"correct"``: Poisson sampling (``poisson_sampling=True``);
* ``"fixed-batches"``: ``poisson_sampling=False`` on a shuffling ``DataLoader``: each epoch
  holds the canary in exactly one batch, but the accountant still assumes Poisson sampling;
* ``"noise-without-clip"``: the noise's std is ``noise_multiplier`` instead of
  ``noise_multiplier * max_grad_norm`` (an overridden ``add_noise``);
* ``"clip-after-sum"``: the batch's summed gradient is clipped instead of each example's
  (an overridden ``clip_and_accumulate``); the real records then share the canary's feature
  (``shared_feature``), so that the clipped sum moves by up to twice ``max_grad_norm``;
* ``"accumulation"``: each step accumulates ``2`` Poisson batches (two ``backward`` calls
  before ``step``) without ``BatchMemoryManager``; Opacus accounts it as one step at twice
  the sample rate, but the canary can be drawn in both batches.

Opacus and PyTorch are imported lazily, inside the methods; importing this module imports
neither.

References:
    Abadi et al., "Deep learning with differential privacy" (CCS 2016); Nasr, Hayes, Steinke,
    Balle, Tramèr, Jagielski, Carlini, Terzis, "Tight auditing of differentially private
    machine learning" (USENIX Security 2023, Dirac gradient canaries); Chua et al., "How
    private are DP-SGD implementations?" (ICML 2024, shuffling accounted as Poisson).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import NamedRepr

__all__ = [
    "ACCOUNTANTS",
    "VARIANTS",
    "OneRunResult",
    "Training",
    "accountant_profile",
    "builtin_adapters",
    "one_run_audit",
]

VARIANTS = ("correct", "fixed-batches", "noise-without-clip", "clip-after-sum")
ACCOUNTANTS = ("prv", "rdp")
OBSERVATIONS = ("steps", "final")

#: the deltas the accountant is asked for; the claim is the profile of these points
PROFILE_DELTAS = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, *np.logspace(-1, -10, 19).tolist())
#: the canary's gradient before clipping, in units of max_grad_norm (clipped to exactly 1)
CANARY_GRADIENT = 1000.0


def accountant_profile(accountant: Any, *, report_delta: float = 1e-5, name: str = "") -> Any:
    """The delta(eps) profile an Opacus accountant states: ``(get_epsilon(d), d)`` at each of
    :data:`PROFILE_DELTAS` (eps below 0 read as 0; at one eps the smallest delta is kept).

    A profile table claims, at every eps, the delta of its nearest point at or below, which
    is what ``get_epsilon`` promises point by point.
    """
    from auditor.core.claim_kinds import PrivacyProfile

    key = (type(accountant).__name__, tuple(tuple(h) for h in accountant.history))
    if key not in _PROFILES:
        best: dict[float, float] = {}
        for d in PROFILE_DELTAS:
            with warnings.catch_warnings():  # RDP: "optimal order is the smallest alpha"
                warnings.simplefilter("ignore")
                eps = max(0.0, float(accountant.get_epsilon(delta=float(d))))
            if math.isfinite(eps):
                best[eps] = min(best.get(eps, 1.0), float(d))
        _PROFILES[key] = tuple(sorted(best.items()))
    return PrivacyProfile(_PROFILES[key], name=name, report_delta=report_delta)


#: the profile tables computed so far, by accountant class and history
_PROFILES: dict[tuple[str, tuple[tuple[Any, ...], ...]], tuple[tuple[float, float], ...]] = {}


class Training(NamedRepr):
    """A DP-SGD training run by Opacus, audited with a Dirac gradient canary (module docstring).

    Raises:
        ValueError: an unknown variant, accountant or observation; parameters that are not
            positive; a batch size whose number of batches per epoch changes when the canary is
            added (the sample rate Opacus derives, ``1 / len(data_loader)``, would differ
            between the neighbours).
    """

    library = "opacus"
    input_kind = "local"
    domain = (0, 1)
    output_kind = "real"
    vectorised = False

    def __init__(
        self,
        variant: str = "correct",
        *,
        observe: str = "steps",
        n_examples: int = 63,
        batch_size: int = 32,
        steps: int = 4,
        noise_multiplier: float = 1.0,
        max_grad_norm: float = 1.0,
        learning_rate: float = 0.1,
        features: int = 4,
        accountant: str = "prv",
        grid: float = 2.0**-8,
        shared_feature: bool | None = None,
        canaries: int = 1,
    ) -> None:
        for value, allowed, what in (
            (variant, VARIANTS, "variant"),
            (accountant, ACCOUNTANTS, "accountant"),
            (observe, OBSERVATIONS, "observe"),
        ):
            if value not in allowed:
                raise ValueError(f"{what}={value!r} must be one of {allowed}")
        self.variant, self.observe, self.accountant = variant, observe, accountant
        self.n_examples = as_integer(n_examples, "n_examples")
        self.batch_size = as_integer(batch_size, "batch_size")
        self.steps = as_integer(steps, "steps")
        self.features = as_integer(features, "features")
        for name, x in (
            ("noise_multiplier", noise_multiplier),
            ("max_grad_norm", max_grad_norm),
            ("learning_rate", learning_rate),
            ("grid", grid),
        ):
            if not (isinstance(x, int | float) and math.isfinite(x) and x > 0):
                raise ValueError(f"{name}={x!r} must be a finite number > 0")
        self.noise_multiplier, self.max_grad_norm = float(noise_multiplier), float(max_grad_norm)
        self.learning_rate, self.grid = float(learning_rate), float(grid)
        self.canaries = as_integer(canaries, "canaries")
        if min(self.n_examples, self.batch_size, self.steps, self.features, self.canaries) < 1:
            raise ValueError("n_examples, batch_size, steps, features, canaries must be >= 1")
        most = self.n_examples + self.canaries
        if -(-self.n_examples // self.batch_size) != -(-most // self.batch_size):
            raise ValueError(
                f"batch_size={self.batch_size} splits {self.n_examples} and {most} records "
                "into different numbers of batches: the sample rate would differ between "
                "the neighbours"
            )
        self.shared_feature = (
            variant == "clip-after-sum" if shared_feature is None else bool(shared_feature)
        )
        self.output_length = self.steps if observe == "steps" else 1
        self.library_version = installed_version("opacus")
        self._generator = np.random.default_rng()
        self._data = _synthetic_data(
            self.n_examples, self.features, self.shared_feature, self.canaries
        )
        self.claim = self._accountant_claim()
        self.epsilon, self.delta = self.claim.epsilon, self.claim.delta
        self.name = f"opacus.training.{variant}.{'white-box' if observe == 'steps' else 'final'}"
        self.description = (
            f"opacus {self.library_version} make_private, logistic regression on "
            f"{self.n_examples} records (+ a Dirac gradient canary), batch {self.batch_size} "
            f"of {self.n_examples + 1} ({variant}), {self.steps} steps, noise_multiplier "
            f"{self.noise_multiplier:g}, max_grad_norm {self.max_grad_norm:g}; observed: "
            f"{'every step' if observe == 'steps' else 'the final score'}; claim: the "
            f"{accountant.upper()} accountant's profile (eps {self.epsilon:.3g} at delta "
            f"{self.delta:g})"
        )

    def seed(self, entropy: int) -> None:
        """Re-seed: each training's torch seed is drawn from a numpy Generator of ``entropy``."""
        self._generator = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` trainings with the canary absent (``query == 0``) or present (1)."""
        canary = int(query)
        if self.canaries != 1:
            raise ValueError(f"sample needs canaries=1, not {self.canaries} (see one_run_audit)")
        if canary not in (0, 1):
            raise ValueError(f"query={query!r} must be 0 (no canary) or 1 (canary)")
        seeds = self._generator.integers(0, 2**62, size=n)
        out = np.empty((n, self.output_length), dtype=np.float64)
        for i, s in enumerate(seeds.tolist()):
            out[i] = self.train(bool(canary), s)[0]
        return out[:, 0] if self.output_length == 1 else out

    def train(self, canary: bool, seed: int) -> tuple[np.ndarray, Any]:
        """One training: the observed output (rounded to ``grid``) and Opacus's accountant."""
        out, accountant = self.train_canaries(np.full(self.canaries, bool(canary)), seed)
        return out[:, 0], accountant

    def train_canaries(self, included: np.ndarray, seed: int) -> tuple[np.ndarray, Any]:
        """One training with canary k present where ``included[k]``: the observed values,
        rounded to ``grid``, shape (steps, canaries) or (1, canaries) for the final score."""
        import torch

        included = np.asarray(included, dtype=bool)
        if included.shape != (self.canaries,):
            raise ValueError(f"included has shape {included.shape}, not ({self.canaries},)")
        torch.set_num_threads(1)
        with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(int(seed))
            raw, accountant = _run(self, included)
        return np.round(raw / self.grid) * self.grid, accountant

    def _accountant_claim(self) -> Any:
        _, accountant = self.train_canaries(np.ones(self.canaries, dtype=bool), 0)
        return accountant_profile(accountant, name=f"opacus {self.accountant} accountant")


def _synthetic_data(n: int, d: int, shared: bool, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` records of ``d`` Gaussian features and a label from the first, then ``m`` canary
    features (columns d, ..., d + m - 1): 0 for real records, or 1 with label 1 when
    ``shared``, so their gradients in those coordinates all have one sign.  Fixed (seed 0):
    only the canaries vary."""
    rng = np.random.default_rng(0)
    x = np.zeros((n, d + m), dtype=np.float32)
    x[:, :d] = rng.normal(size=(n, d))
    y = (x[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(np.float32)
    if shared:
        x[:, d:], y[:] = 1.0, 1.0
    return x, y


def _run(adapter: Training, included: np.ndarray) -> tuple[np.ndarray, Any]:
    """One training with canary k present where ``included[k]``, under torch's (already
    seeded) global generator: the observed values, shape (steps, m), or (1, m) for the final
    score, and Opacus's accountant."""
    import torch
    from opacus import PrivacyEngine

    x, y, loader = _loader(adapter, included)
    m = len(included)
    model = torch.nn.Linear(x.shape[1], 1, bias=False)
    torch.nn.init.zeros_(model.weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=adapter.learning_rate)
    engine = PrivacyEngine(accountant=adapter.accountant)
    model, optimizer, loader = engine.make_private(
        module=model,
        optimizer=optimizer,
        data_loader=loader,
        noise_multiplier=adapter.noise_multiplier,
        max_grad_norm=adapter.max_grad_norm,
        poisson_sampling=adapter.variant != "fixed-batches",
        loss_reduction="sum",
    )
    _patch_optimizer(optimizer, adapter.variant)
    weight, first = model._module.weight, x.shape[1] - m
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="sum")
    batches = _endless(loader)
    observed = np.empty((adapter.steps, m), dtype=np.float64)
    for t in range(adapter.steps):
        optimizer.zero_grad()
        xb, yb, flag = next(batches)
        if len(xb) == 0:  # an empty Poisson batch: per-sample gradients of length 0
            weight.grad_sample = torch.zeros((0, *weight.shape))
        else:
            loss_fn(model(xb).squeeze(-1), yb).backward()
            _plant_canaries(weight, flag, first, CANARY_GRADIENT * adapter.max_grad_norm)
        optimizer.step()
        observed[t] = weight.grad[0, first:].double().numpy() / adapter.max_grad_norm
    if adapter.observe == "final":
        with torch.no_grad():
            scores = model(torch.as_tensor(_canary_rows(x.shape[1], m)))[:, 0].double().numpy()
        observed = -scores[None, :] / (adapter.learning_rate * adapter.max_grad_norm)
    return observed, engine.accountant


def _canary_rows(width: int, m: int) -> np.ndarray:
    """The m canaries' feature vectors: canary k is 1 in column width - m + k, else 0."""
    rows = np.zeros((m, width), dtype=np.float32)
    rows[np.arange(m), width - m + np.arange(m)] = 1.0
    return rows


def _loader(adapter: Training, included: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
    """The training set (real records, then the included canaries, label 0) and its plain
    ``DataLoader``; the third tensor is 0 for a real record and k + 1 for canary k."""
    import torch

    x, y = adapter._data
    which = np.flatnonzero(included)
    flag = np.concatenate([np.zeros(len(x)), which + 1.0]).astype(np.float32)
    x = np.vstack([x, _canary_rows(x.shape[1], len(included))[which]])
    y = np.concatenate([y, np.zeros(len(which), dtype=np.float32)])
    dataset = torch.utils.data.TensorDataset(
        torch.as_tensor(x), torch.as_tensor(y), torch.as_tensor(flag)
    )
    shuffle = adapter.variant == "fixed-batches"
    loader = torch.utils.data.DataLoader(dataset, batch_size=adapter.batch_size, shuffle=shuffle)
    return x, y, loader


def _endless(loader: Any) -> Any:
    while True:
        yield from loader


def _plant_canaries(weight: Any, flag: Any, first: int, size: float) -> None:
    """Replace each sampled canary's per-sample gradient by a Dirac of ``size`` in its own
    coordinate (``first`` + its index), before Opacus clips it."""
    rows = (flag > 0).nonzero().flatten()
    if len(rows):
        chunk = weight.grad_sample
        chunk[rows] = 0.0
        chunk[rows, 0, first + flag[rows].long() - 1] = size


def _patch_optimizer(optimizer: Any, variant: str) -> None:
    """Give the DPOptimizer the variant's mistake (bound methods on this instance only)."""
    import types

    if variant == "noise-without-clip":
        optimizer.add_noise = types.MethodType(_add_noise_without_clip, optimizer)
    elif variant == "clip-after-sum":
        optimizer.clip_and_accumulate = types.MethodType(_clip_after_sum, optimizer)


def _add_noise_without_clip(self: Any) -> None:
    """``DPOptimizer.add_noise`` with std ``noise_multiplier`` (the clipping norm forgotten)."""
    from opacus.optimizers.optimizer import _generate_noise

    for p in self.params:
        noise = _generate_noise(
            std=self.noise_multiplier,
            reference=p.summed_grad,
            generator=self.generator,
            secure_mode=self.secure_mode,
        )
        p.grad = (p.summed_grad + noise).view_as(p)


def _clip_after_sum(self: Any) -> None:
    """``DPOptimizer.clip_and_accumulate`` clipping the batch's sum, not each example."""
    import torch

    sums = [self._get_flat_grad_sample(p).sum(dim=0) for p in self.params]
    norm = torch.stack([s.norm(2) for s in sums]).norm(2)
    factor = (self.max_grad_norm / (norm + 1e-6)).clamp(max=1.0)
    for p, s in zip(self.params, sums, strict=True):
        p.summed_grad = (factor * s).to(p.dtype)


@dataclass(frozen=True)
class OneRunResult:
    """A one-run audit: ``right`` of ``guesses`` right on ``m`` canaries, the bound at
    ``delta`` (significance ``alpha``, shared by the tried guess counts) and the accountant's
    epsilon at the same delta."""

    m: int
    guesses: int
    right: int
    delta: float
    alpha: float
    epsilon_lower_bound: float
    accountant_epsilon: float
    seed: int


def one_run_audit(
    m: int = 1000,
    *,
    guesses: tuple[int, ...] = (20, 50, 100, 200),
    delta: float = 1e-5,
    alpha: float = 0.05,
    seed: int = 0,
    variant: str = "correct",
    **params: Any,
) -> OneRunResult:
    """One training with ``m`` canaries, each present with probability 1/2 (a fair coin from
    ``seed``), audited by Steinke, Nasr and Jagielski's bound.

    Each canary's score is its summed white-box updates (or its final score with
    ``observe="final"``); for each r in ``guesses`` the r/2 highest scores are guessed in and
    the r/2 lowest out.  The bound is the best over ``guesses``, each at ``alpha`` divided by
    their number (a union bound), so it holds with probability at least 1 - alpha.  By
    default there are ``m + 64`` real records in two batches, so that every inclusion pattern
    keeps Opacus's sample rate at 1/2.  ``params`` go to :class:`Training`.
    """
    from auditor.statistics.one_run import one_run_epsilon

    n = params.pop("n_examples", m + 64)
    batch = params.pop("batch_size", -(-(n + m) // 2))
    adapter = Training(variant, n_examples=n, batch_size=batch, canaries=m, **params)
    rng = np.random.default_rng(seed)
    included = rng.random(m) < 0.5
    out, accountant = adapter.train_canaries(included, int(rng.integers(0, 2**62)))
    order = np.argsort(out.sum(axis=0), kind="stable")
    best = (0.0, 0, 0)
    for r in guesses:
        k = min(r // 2, m // 2)
        right = int(included[order[m - k :]].sum() + (~included[order[:k]]).sum())
        eps = one_run_epsilon(m, 2 * k, right, delta=delta, alpha=alpha / len(guesses))
        best = max(best, (eps, 2 * k, right))
    return OneRunResult(
        m=m,
        guesses=best[1],
        right=best[2],
        delta=delta,
        alpha=alpha,
        epsilon_lower_bound=best[0],
        accountant_epsilon=float(accountant.get_epsilon(delta=delta)),
        seed=seed,
    )


def builtin_adapters() -> list[Any]:
    """The correct configuration (white-box and final model) and the three misconfigurations,
    white-box (raises ImportError without Opacus)."""
    import opacus  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        Training("correct"),
        Training("correct", observe="final"),
        Training("fixed-batches", noise_multiplier=0.3, steps=2),
        Training("noise-without-clip", max_grad_norm=2.0),
        Training("clip-after-sum"),
    ]
