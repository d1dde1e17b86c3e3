"""A conformance check adapter authors can call from their own test suites.

    from auditor.testing import check_adapter_conformance

    def test_my_adapter_follows_the_contract():
        check_adapter_conformance(MyLaplace())

It checks what the harness relies on before it can audit anything: the declared claim and
family, the output contract of ``sample`` for a typical query, and — when the adapter offers
``seed`` — that the same seed replays the same outputs.
"""

from __future__ import annotations

from typing import Any

from auditor.core.errors import AdapterContractError
from auditor.core.oracles import answer_count, noiseless_answers, pair_sensitivity
from auditor.core.spec import AdapterSpec, check_adapter, typical_query
from auditor.engine.sampling import draw, same_outputs


def check_adapter_conformance(adapter: Any, query: Any = None, n: int = 1000) -> AdapterSpec:
    """Raise a one-line ``DPAuditError`` if ``adapter`` breaks the contract; return its spec.

    Raises:
        AdapterContractError: bad claim or attributes, or a seed that does not replay.
        AdapterOutputError: ``sample`` returns the wrong shape, dtype or values.
        AdapterRaised: ``sample`` (or the ``release_without_noise`` extra) raises.
    """
    spec = check_adapter(adapter)
    query = typical_query(spec) if query is None else query
    first = draw(spec, query, n, entropy=12345)
    small = draw(spec, query, 1, entropy=1)
    if len(small) != 1:  # (1,), or (1, d) for vector outputs
        raise AdapterContractError(
            f"adapter {spec.name!r}: sample(query, 1) must return one output"
        )
    if spec.seedable:
        again = draw(spec, query, n, entropy=12345)
        if not same_outputs(first, again):
            raise AdapterContractError(
                f"adapter {spec.name!r}: seed(entropy) does not replay: two draws with the same seed differ"
            )
    length = answer_count(spec) if spec.has_noiseless_probe else None
    if length is not None:
        pair_sensitivity(spec, query)  # a declared sensitivity must be a finite number > 0
        noiseless_answers(spec, query, length)  # finite numbers, integers kept exact
    return spec
