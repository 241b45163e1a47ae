from qrelkit.judges.evidence import check_quotes, is_quoted

DOC = "The “quick” brown fox\n\njumps over   the lazy dog — twice."


def test_whitespace_case_and_typography_are_normalised():
    assert is_quoted('the "QUICK" brown fox jumps', DOC)
    assert is_quoted("over the lazy dog - twice", DOC)
    assert is_quoted('"brown fox"', DOC)


def test_ellipsis_pieces_must_appear_in_order():
    assert is_quoted("quick ... lazy dog", DOC)
    assert is_quoted("quick… twice", DOC)
    assert not is_quoted("lazy dog ... quick", DOC)


def test_missing_quotes_are_flagged_and_empty_ones_skipped():
    checks = check_quotes(["brown fox", "red fox", "  ", 7], DOC)
    assert [(c.quote, c.found) for c in checks] == [("brown fox", True), ("red fox", False)]
