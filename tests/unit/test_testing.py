import numpy as np
import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse

from auditor import AdapterContractError, AdapterOutputError
from auditor.adapters.textbook import TextbookLaplace
from auditor.shell.testing import check_adapter_conformance


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
