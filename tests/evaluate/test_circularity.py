from __future__ import annotations

import pytest

from qrelkit.errors import InputError
from qrelkit.evaluate.circularity import circularity_warnings, model_family, read_run_meta


@pytest.mark.parametrize("name, family", [
    ("meta-llama/Llama-3.3-70B-Instruct", "llama"),
    ("llama3-8b", "llama"),
    ("ollama:llama3.1:8b", "llama"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen"),
    ("gpt-4o-mini", "gpt"),
    ("openai:gpt-4.1", "gpt"),
    ("mistralai/Mixtral-8x7B", "mistral"),
    ("google/flan-t5-large", "t5"),
    ("castorini/monot5-3b-msmarco", "t5"),
    ("HuggingFaceTB/SmolLM2-360M-Instruct", "smollm"),
    ("colbertv2", "colbertv"),
])
def test_model_family(name, family):
    assert model_family(name) == family


def test_warnings_and_meta(tmp_path):
    w = circularity_warnings({"r1": "Llama-3-8B", "r2": "monoT5", "r3": ""}, ["meta-llama/Llama-3.3-70B"])
    assert [x.run for x in w] == ["r1"] and w[0].family == "llama"
    assert "same family" in w[0].message()
    f = tmp_path / "meta.json"
    f.write_text('{"r1": {"model": "llama3"}, "r2": "qwen2", "r3": {}}')
    assert read_run_meta(f) == {"r1": "llama3", "r2": "qwen2"}
    t = tmp_path / "meta.toml"
    t.write_text('[r1]\nmodel = "gpt-4o"\n')
    assert read_run_meta(t) == {"r1": "gpt-4o"}
    f.write_text('{"r1": 3}')
    with pytest.raises(InputError):
        read_run_meta(f)
    f.write_text('{\n"r1": ')
    with pytest.raises(InputError, match=r"meta.json:2"):
        read_run_meta(f)
