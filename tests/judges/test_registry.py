"""The judge registry is lazy: a spec imports the modules of the methods it names, nothing else
(:data:`qrelkit.judges.MODULES`); the table says what the modules register."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import MODULES, REGISTRY, methods, parse_spec


def test_the_static_table_is_what_the_modules_register():
    assert methods() == sorted(MODULES)  # methods() imports every module
    assert {name: REGISTRY[name].__module__ for name in MODULES} == MODULES


def test_an_unknown_method_is_told_every_method():
    with pytest.raises(UsageError) as e:
        parse_spec("zero-shoot")
    assert str(e.value).endswith("unknown method 'zero-shoot'; choose from " + ", ".join(methods()))


def _judge_modules_after(code: str) -> dict:
    """The judge modules (and whether numpy) a fresh interpreter holds after running ``code``."""
    probe = (f"import sys\n{code}\nimport json\n"
             "print(json.dumps({'judges': sorted(m for m in sys.modules if m in set(MODULES.values())), "
             "'numpy': 'numpy' in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", "from qrelkit.judges import MODULES\n" + probe],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.mark.parametrize(("code", "modules"), [
    ("parse_spec('zero-shot')", ["zeroshot"]),
    ("build(parse_spec('zero-shot(narrative=topic)'))", ["zeroshot"]),
    ("build('vote(judges=[zero-shot,zero-shot(narrative=topic)])')", ["vote", "zeroshot"]),
])
def test_a_spec_imports_only_the_judges_it_names(code, modules):
    got = _judge_modules_after(f"from qrelkit.judges import build, parse_spec\n{code}")
    assert got["judges"] == [f"qrelkit.judges.{m}" for m in modules]


def test_a_zero_shot_spec_does_not_import_numpy():
    assert _judge_modules_after("from qrelkit.judges import build\nbuild('zero-shot')")["numpy"] is False


def test_listing_the_methods_imports_them_all():
    got = _judge_modules_after("from qrelkit.judges import describe\ndescribe()")
    assert got["judges"] == sorted(MODULES.values())
