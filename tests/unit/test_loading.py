import textwrap

import pytest

from auditor import AdapterLoadError, load_target
from dp_audit.loading import load_builtins

ADAPTER_FILE = textwrap.dedent(
    """
    class A:
        family = "binary"
        epsilon = 1.0
        def __init__(self, name):
            self.name = name
        def sample(self, q, n):
            return [q] * n

    one = A("file.one")
    many = [A("file.a"), A("file.b")]
    def factory():
        return [A("file.made")]
    def broken_factory():
        raise RuntimeError("boom")
    not_an_adapter = 42
    """
)


@pytest.fixture
def adapter_file(tmp_path):
    path = tmp_path / "my_adapters.py"
    path.write_text(ADAPTER_FILE)
    return path


def test_file_targets(adapter_file):
    assert [a.name for a in load_target(f"{adapter_file}:one")] == ["file.one"]
    assert [a.name for a in load_target(f"{adapter_file}:many")] == ["file.a", "file.b"]
    assert [a.name for a in load_target(f"{adapter_file}:factory")] == ["file.made"]


def test_a_file_target_is_recorded_with_its_absolute_path(adapter_file, monkeypatch):
    # workers and reproducer scripts load it from wherever they run
    from dp_audit.loading import load_named

    monkeypatch.chdir(adapter_file.parent)
    ((adapter, target),) = load_named(f"{adapter_file.name}:one")
    assert adapter.name == "file.one" and target == f"{adapter_file.resolve()}:one"


def test_an_object_without_a_family_is_named_with_what_it_lacks(tmp_path):
    path = tmp_path / "nofamily.py"
    path.write_text(
        "class A:\n    name = 'x.nofamily'\n    def sample(self, q, n):\n        return [0] * n\n"
        "a = A()\n"
    )
    with pytest.raises(AdapterLoadError) as info:
        load_target(f"{path}:a")
    text = str(info.value)
    assert "adapter 'x.nofamily'" in text and "declares neither 'family'" in text
    assert text.count(str(path)) == 1 and " at 0x" not in text


def test_a_file_target_imports_its_siblings(tmp_path):
    (tmp_path / "sibling_helper_for_dp_audit.py").write_text("EPSILON = 0.5\n")
    (tmp_path / "uses_helper.py").write_text(
        ADAPTER_FILE + "\nimport sibling_helper_for_dp_audit as h\none.epsilon = h.EPSILON\n"
    )
    (adapter,) = load_target(f"{tmp_path / 'uses_helper.py'}:one")
    assert adapter.epsilon == 0.5


def test_module_target():
    adapters = load_target("auditor.adapters.textbook:builtin_adapters")
    assert adapters and all(a.name.startswith("textbook.") for a in adapters)


@pytest.mark.parametrize(
    ("suffix", "message"),
    [
        (":missing", "has no attribute 'missing'"),
        (":not_an_adapter", "is not an adapter"),
        (":broken_factory", "raised RuntimeError: boom"),
    ],
)
def test_file_target_errors(adapter_file, suffix, message):
    with pytest.raises(AdapterLoadError, match=message):
        load_target(f"{adapter_file}{suffix}")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nosuch:thing", "cannot import module 'nosuch'"),
        ("does/not/exist.py:x", "no such file"),
        ("no-such-entry-point", "no entry point"),
        (":x", "must be"),
    ],
)
def test_bad_targets_are_one_line_errors(target, message):
    with pytest.raises(AdapterLoadError, match=message) as info:
        load_target(target)
    assert "\n" not in str(info.value)


def test_builtins_load_without_optional_libraries():
    groups = load_builtins()
    assert groups[0].adapters, "the textbook adapters are always available"
    for g in groups:
        assert g.adapters or g.skipped
