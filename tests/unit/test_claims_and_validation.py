import math

import pytest

from auditor import AdapterContractError, Family, InvalidArgument, PrivacyClaim, check_adapter


class Adapter:
    name = "t.adapter"
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0

    def sample(self, query, n):
        return [0.0] * n


def make(**attrs):
    a = Adapter()
    for k, v in attrs.items():
        setattr(a, k, v)
    return a


@pytest.mark.parametrize("eps", [0, -1.0, math.nan, math.inf, "1", True])
def test_claim_rejects_bad_epsilon(eps):
    with pytest.raises(InvalidArgument, match="epsilon"):
        PrivacyClaim(eps)


@pytest.mark.parametrize("delta", [-0.1, 1.0, 2, math.nan])
def test_claim_rejects_bad_delta(delta):
    with pytest.raises(InvalidArgument, match="delta"):
        PrivacyClaim(1.0, delta)


def test_claim_normalises_to_float():
    c = PrivacyClaim(2, 0)
    assert (c.epsilon, c.delta) == (2.0, 0.0) and isinstance(c.epsilon, float)


def test_valid_adapter_spec():
    spec = check_adapter(Adapter())
    assert (
        spec.family is Family.ADDITIVE
        and spec.claim == PrivacyClaim(1.0)
        and spec.sensitivity == 1.0
    )
    assert not spec.seedable


@pytest.mark.parametrize(
    ("attrs", "field"),
    [
        ({"epsilon": -1}, "epsilon"),
        ({"epsilon": math.nan}, "epsilon"),
        ({"delta": 1.0}, "delta"),
        ({"family": "gaussianish"}, "family"),
        ({"sensitivity": 0}, "sensitivity"),
        ({"sensitivity": math.inf}, "sensitivity"),
        ({"name": ""}, "name"),
        ({"sample": 3}, "sample"),
    ],
)
def test_contract_errors_name_adapter_and_field(attrs, field):
    with pytest.raises(AdapterContractError) as info:
        check_adapter(make(**attrs))
    message = str(info.value)
    assert field in message and "\n" not in message
    if field != "name":
        assert "t.adapter" in message


def test_missing_attribute_is_named():
    class NoEpsilon:
        name = "t.noeps"
        family = "binary"

        def sample(self, q, n):
            return [0] * n

    with pytest.raises(AdapterContractError, match="'epsilon' is missing"):
        check_adapter(NoEpsilon())


def test_dataset_family_needs_domain_and_relation():
    a = make(family="dataset", domain=(0, 1), neighbours="replace")
    spec = check_adapter(a)
    assert spec.domain == (0.0, 1.0) and spec.neighbours == "replace"
    with pytest.raises(AdapterContractError, match="domain"):
        check_adapter(make(family="dataset", domain=(1, 0)))
    with pytest.raises(AdapterContractError, match="neighbours"):
        check_adapter(make(family="dataset", domain=(0, 1), neighbours="swap"))


def test_the_spec_holds_every_optional_extra_read_once():
    class Selection:
        name, family, epsilon, sensitivity = "s", "selection", 1.0, 1.0
        utility_bounds = (0, 10)

        def sample(self, query, n):
            return [0] * n

        def probabilities(self, query):
            return [1.0]

    spec = check_adapter(Selection())
    assert spec.utility_bounds == (0.0, 10.0) and spec.has_probabilities
    assert not spec.seedable and not spec.has_noiseless_probe and spec.query_bounds is None

    Selection.utility_bounds = (3, 1)
    with pytest.raises(AdapterContractError, match=r"utility_bounds=\(3, 1\) must be a pair"):
        check_adapter(Selection())

    class Dataset:
        name, family, epsilon = "d", "dataset", 1.0
        domain, neighbours, sensitivity = (2**62, 2**62 + 1), "replace", 1

        def sample(self, query, n):
            return [0.0] * n

        def release_without_noise(self, query):
            return 0.0

    spec = check_adapter(Dataset())
    assert spec.exact_domain == (2**62, 2**62 + 1) and spec.integer_domain  # no float collapse
    assert spec.dataset_sensitivity == 1 and spec.has_noiseless_probe
