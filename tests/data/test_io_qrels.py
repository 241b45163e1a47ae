from __future__ import annotations

import gzip

import pytest

from qrelkit.data import QrelsFile, as_pairs, load_qrels, read_qrels, write_qrels
from qrelkit.errors import InputError
from qrelkit.types import Qrel

BASIC = "q1 0 d1 1\nq1 0 d2 0\n\nq2 Q0 d1 3\nq2 0 d9 -1\n"


def test_read_qrels_parses_columns_and_keeps_negative_grades(write):
    path = write("qrels.txt", BASIC)
    assert list(read_qrels(path)) == [
        Qrel("q1", "d1", 1), Qrel("q1", "d2", 0), Qrel("q2", "d1", 3), Qrel("q2", "d9", -1),
    ]


def test_read_qrels_is_lazy(write):
    path = write("qrels.txt", "q1 0 d1 1\nbroken line\n")
    it = read_qrels(path)
    assert next(it) == Qrel("q1", "d1", 1)
    with pytest.raises(InputError):
        next(it)


@pytest.mark.parametrize("name,gz", [("qrels.txt.gz", True), ("qrels.bin", True), ("plain.gz", False)])
def test_gzip_is_detected_by_magic_bytes(write, name, gz):
    path = write(name, BASIC, gz=gz)
    assert len(list(read_qrels(path))) == 4


def test_identical_duplicates_are_counted_not_fatal(write):
    path = write("qrels.txt", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\nq1 0 d1 1\n")
    qrels = load_qrels(path)
    assert qrels.pairs == {("q1", "d1"): 1, ("q1", "d2"): 0}
    assert qrels.duplicates == 2
    assert list(read_qrels(path)) == [Qrel("q1", "d1", 1), Qrel("q1", "d2", 0)]


def test_conflicting_labels_name_both_lines(write):
    path = write("qrels.txt", "q1 0 d0 0\nq1 0 x 0\nq1 0 d1 1\nq1 0 y 0\nq1 0 z 0\nq1 0 w 0\nq1 0 d1 2\n")
    expected = f"{path}:7: conflicting labels for (q1, d1): line 3 says 1, line 7 says 2"
    with pytest.raises(InputError) as err:
        load_qrels(path)
    assert str(err.value) == expected
    assert err.value.line == 7
    with pytest.raises(InputError) as err:
        list(read_qrels(path))
    assert str(err.value) == expected


def test_allow_conflicts_yields_every_line(write):
    path = write("multi.txt", "q1 0 d1 1\nq1 0 d1 2\nq1 0 d1 1\n")
    assert [q.grade for q in read_qrels(path, allow_conflicts=True)] == [1, 2, 1]


@pytest.mark.parametrize(
    "text,problem",
    [
        ("q1 0 d1 1\nq1 0 d2\n", "2: expected 4 columns (qid iter docid grade), got 3"),
        ("q1 0 d1 1 extra\n", "1: expected 4 columns (qid iter docid grade), got 5"),
        ("q1 0 d1 1\n\nq1 0 d2 1.5\n", "3: grade must be an integer, got '1.5'"),
        ("q1 0 d1 rel\n", "1: grade must be an integer, got 'rel'"),
    ],
)
def test_malformed_lines(write, text, problem):
    path = write("bad.qrels", text)
    with pytest.raises(InputError) as err:
        load_qrels(path)
    assert str(err.value) == f"{path}:{problem}"


def test_invalid_utf8_is_reported_with_its_line(write):
    path = write("bad.qrels", b"q1 0 d1 1\nq1 0 d\xff 1\n")
    with pytest.raises(InputError) as err:
        load_qrels(path)
    assert str(err.value) == f"{path}:2: not valid UTF-8 (byte 7 of the line)"


def test_corrupt_gzip_is_an_input_error(write):
    data = gzip.compress(BASIC.encode() * 50)
    path = write("qrels.txt.gz", data[: len(data) // 2], gz=False)
    with pytest.raises(InputError) as err:
        load_qrels(path)
    assert "corrupt or truncated gzip data" in str(err.value)
    assert str(err.value).startswith(f"{path}:")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError) as err:
        load_qrels(tmp_path / "nope.txt")
    assert str(err.value) == f"{tmp_path / 'nope.txt'}: no such file"
    with pytest.raises(InputError) as err:
        load_qrels(tmp_path)
    assert str(err.value) == f"{tmp_path}: is a directory, expected a file"


def test_empty_qrels_file_is_valid_when_allowed(write):
    qrels = load_qrels(write("empty.txt", ""), allow_empty=True)
    assert len(qrels) == 0 and qrels.qids == frozenset()


@pytest.mark.parametrize("read", [load_qrels, lambda p: list(read_qrels(p)),
                                  lambda p: list(read_qrels(p, allow_conflicts=True))])
def test_empty_qrels_file_is_an_error_by_default(write, read):
    path = write("empty.txt", "\n \n")
    with pytest.raises(InputError) as err:
        read(path)
    assert str(err.value) == f"{path}: no labels found (the qrels file is empty)"


def test_qrels_file_behaves_like_a_mapping(write):
    qrels = load_qrels(write("qrels.txt", BASIC))
    assert isinstance(qrels, QrelsFile)
    assert ("q1", "d1") in qrels and ("q1", "zz") not in qrels
    assert qrels["q2", "d1"] == 3
    assert qrels.get(("q9", "d1")) is None
    assert len(qrels) == 4
    assert qrels.qids == frozenset({"q1", "q2"})
    assert list(qrels) == [("q1", "d1"), ("q1", "d2"), ("q2", "d1"), ("q2", "d9")]
    assert as_pairs(qrels) is qrels.pairs
    assert as_pairs([Qrel("a", "b", 2)]) == {("a", "b"): 2}


def test_write_qrels_sorts_and_round_trips(tmp_path):
    labels = [Qrel("q2", "d1", 1), Qrel("q10", "b", -1), Qrel("q1", "z", 0), Qrel("q1", "a", 3)]
    out = tmp_path / "out" / "qrels.txt"
    assert write_qrels(out, labels) == 4
    assert out.read_text() == "q1 0 a 3\nq1 0 z 0\nq10 0 b -1\nq2 0 d1 1\n"
    assert sorted(read_qrels(out), key=lambda q: (q.qid, q.docid)) == sorted(
        labels, key=lambda q: (q.qid, q.docid))


def test_write_qrels_stable_for_repeated_pairs(tmp_path):
    out = tmp_path / "multi.txt"
    write_qrels(out, [Qrel("q1", "d", 2), Qrel("q0", "d", 0), Qrel("q1", "d", 1)])
    assert out.read_text() == "q0 0 d 0\nq1 0 d 2\nq1 0 d 1\n"


def test_write_qrels_gz_is_gzip_and_deterministic(tmp_path, write):
    qrels = load_qrels(write("qrels.txt", BASIC))
    a, b = tmp_path / "a.txt.gz", tmp_path / "b.txt.gz"
    write_qrels(a, qrels)
    write_qrels(b, qrels.pairs)
    assert a.read_bytes()[:2] == b"\x1f\x8b"
    assert a.read_bytes() == b.read_bytes()
    assert load_qrels(a).pairs == qrels.pairs


def test_write_qrels_rejects_ids_with_whitespace(tmp_path):
    with pytest.raises(InputError) as err:
        write_qrels(tmp_path / "x.txt", [Qrel("q 1", "d", 1)])
    assert "cannot write qid 'q 1' in TREC format" in str(err.value)


def test_open_text_and_crlf_lines(write):
    from qrelkit.data import open_text

    path = write("crlf.txt.gz", "q1 0 d1 1\r\nq1 0 d2 2\r\n")
    with open_text(path) as fh:
        assert fh.read() == "q1 0 d1 1\r\nq1 0 d2 2\r\n"
    assert load_qrels(path).pairs == {("q1", "d1"): 1, ("q1", "d2"): 2}
