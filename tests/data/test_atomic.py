"""Outputs are written whole or not at all (issue 25): qrelkit.data.atomic.

The kill of a real `qrelkit export` is in tests/integrity/test_killed_writes.py;
these check the helper's rules one at a time."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys

import pytest

from qrelkit.data import write_qrels
from qrelkit.data._open import open_write
from qrelkit.data.atomic import TMP_SUFFIX, atomic_write, temp_name
from qrelkit.errors import InputError


def _temps(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(TMP_SUFFIX))


def test_a_finished_write_replaces_the_file(tmp_path):
    out = tmp_path / "q.txt"
    out.write_text("old\n")
    with atomic_write(out) as f:
        f.write("new\n")
    assert out.read_text() == "new\n"


def test_a_failed_write_leaves_the_old_file(tmp_path):
    out = tmp_path / "q.txt"
    out.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_write(out) as f:
        f.write("half")
        raise RuntimeError("the writer failed")
    assert out.read_text() == "old\n"


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "q.txt"
    with pytest.raises(RuntimeError), atomic_write(out) as f:
        f.write("half")
        raise RuntimeError("the writer failed")
    assert _temps(tmp_path) == []


def test_the_old_file_is_untouched_while_the_new_one_is_written(tmp_path):
    out = tmp_path / "q.txt"
    out.write_text("old\n")
    with atomic_write(out) as f:
        f.write("new\n")
        f.flush()
        assert out.read_text() == "old\n"


def test_the_temporary_file_is_in_the_same_folder(tmp_path):
    out = tmp_path / "q.txt"
    with atomic_write(out) as f:
        f.write("x")
        assert len(_temps(tmp_path)) == 1


def test_a_temporary_file_of_a_killed_process_is_removed_by_the_next_write(tmp_path):
    out = tmp_path / "q.txt"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = out.with_name(f".q.txt.{int(dead.stdout)}.abcd1234{TMP_SUFFIX}")
    stale.write_text("half")
    with atomic_write(out) as f:
        f.write("new\n")
    assert not stale.exists()


def test_a_temporary_file_of_a_live_process_is_kept(tmp_path):
    out = tmp_path / "q.txt"
    alive = out.with_name(f".q.txt.1.abcd1234{TMP_SUFFIX}")  # pid 1 is always running
    alive.write_text("half")
    with atomic_write(out) as f:
        f.write("new\n")
    assert alive.exists()


def test_the_new_file_gets_the_umask_permissions(tmp_path):
    out = tmp_path / "q.txt"
    old = os.umask(0o022)
    try:
        with atomic_write(out) as f:
            f.write("x")
    finally:
        os.umask(old)
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)


def test_parent_folders_are_created(tmp_path):
    out = tmp_path / "a" / "b" / "q.txt"
    with atomic_write(out) as f:
        f.write("x")
    assert out.read_text() == "x"


def test_a_folder_is_refused_naming_it(tmp_path):
    with pytest.raises(InputError, match="is a directory"), atomic_write(tmp_path):
        pass


def test_a_path_below_a_file_is_refused_naming_it(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(InputError) as err, atomic_write(blocker / "q.txt"):
        pass
    assert str(blocker) in str(err.value)


def test_a_symbolic_link_stays_a_link_to_the_new_content(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with atomic_write(link) as f:
        f.write("new\n")
    assert (link.is_symlink(), real.read_text()) == (True, "new\n")


def test_a_device_is_written_in_place(tmp_path):
    with atomic_write("/dev/null") as f:
        f.write("discarded\n")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_binary_mode_writes_bytes(tmp_path):
    out = tmp_path / "b.bin"
    with atomic_write(out, "wb") as f:
        f.write(b"\x00\x01")
    assert out.read_bytes() == b"\x00\x01"


def test_a_gzip_output_is_a_complete_gzip_stream(tmp_path):
    out = tmp_path / "q.txt.gz"
    write_qrels(out, {("q1", "d1"): 1, ("q1", "d2"): 0})
    assert gzip.decompress(out.read_bytes()) == b"q1 0 d1 1\nq1 0 d2 0\n"


def test_a_failed_gzip_write_leaves_the_old_file(tmp_path):
    out = tmp_path / "q.txt.gz"
    out.write_bytes(gzip.compress(b"old\n"))
    with pytest.raises(RuntimeError), open_write(out) as f:
        f.write("new\n")
        raise RuntimeError("the writer failed")
    assert gzip.decompress(out.read_bytes()) == b"old\n"


def test_the_temporary_name_is_hidden_and_names_the_target(tmp_path):
    name = temp_name(tmp_path / "q.txt").name
    assert name.startswith(".q.txt.") and name.endswith(TMP_SUFFIX)


def test_a_mode_that_would_not_write_a_new_file_is_a_bug(tmp_path):
    with pytest.raises(ValueError), atomic_write(tmp_path / "q.txt", "a"):
        pass
