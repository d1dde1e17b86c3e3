import numpy as np
import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse

from auditor import AdapterContractError, AdapterOutputError
from auditor.adapters.textbook import TextbookLaplace
from auditor.testing import check_adapter_conformance


@pytest.mark.parametrize("adapter", [TextbookLaplace(), GeometricLaplace(), RandomizedResponse()])
def test_good_adapters_conform(adapter):
    assert check_adapter_conformance(adapter).name == adapter.name


def test_unreplayable_seed_is_caught():
    class Forgetful(TextbookLaplace):
        def seed(self, entropy):  # ignores the seed
            pass

    with pytest.raises(AdapterContractError, match="does not replay"):
        check_adapter_conformance(Forgetful(name="forgetful"))


def test_wrong_shape_is_caught():
    class TwoD(TextbookLaplace):
        def sample(self, query, n):
            return np.zeros((n, 2))

    with pytest.raises(AdapterOutputError, match="shape"):
        check_adapter_conformance(TwoD(name="twod"))


def _vector_adapters():
    from auditor.adapters.reference_vector import builtin_adapters

    return builtin_adapters()


@pytest.mark.parametrize("adapter", _vector_adapters(), ids=lambda a: a.name)
def test_vector_sequence_and_record_adapters_conform(adapter):
    # rows of d values, answer sequences, index sets and records (NaN for "no answer" replays
    # as NaN): before, anything but one number per output was refused
    assert check_adapter_conformance(adapter).name == adapter.name


def test_a_record_with_no_answers_replays():
    class MaybeValue:
        name, epsilon, delta = "maybe-value", 1.0, 0.0
        input_kind, norm, sensitivity = "vector", "linf", 1.0
        output_kind, nullable = "record", True
        fields = {"index": "index", "value": ("real", 2)}

        def seed(self, entropy):
            self.rng = np.random.default_rng(entropy)

        def sample(self, query, n):
            out = np.zeros(n, dtype=[("index", int), ("value", float, (2,))])
            out["value"] = self.rng.laplace(size=(n, 2))
            out["value"][::3] = np.nan  # no value released for every third output
            return out

    assert check_adapter_conformance(MaybeValue()).name == "maybe-value"
