from reports.evidence import QUERY_RUNS_SHOWN, query_text


def test_scalars_are_shown_as_they_are():
    assert query_text(1.0) == "1.0"


def test_runs_of_equal_records_are_folded():
    assert query_text([0.0] + [0.5] * 9) == "[0.0, 0.5 ×9]"


def test_long_datasets_are_cut_and_point_to_the_json():
    text = query_text(list(range(5000)))
    assert text.count(",") <= QUERY_RUNS_SHOWN + 1
    assert "5000 values in all" in text and "report.json" in text
