"""The Ray engine on a real local Ray (2 CPUs): the same judgments as the plain engine, an actor
killed mid-run changes nothing, a re-run makes no calls.

One Ray for the module (starting one takes seconds); the scripted model answers in the actors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qrelkit.engines import parse_engine
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

from . import scripted

ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'qrelkit[ray]'")
KEYS = list(scripted.GRADES)
N = 40


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 1024 * 1024,
             log_to_driver=False, logging_level="warning")
    ray.cloudpickle.register_pickle_by_value(scripted)
    yield ray
    ray.shutdown()


def make_ws(path: Path) -> Store:
    store = Store.create(path)
    store.upsert_topics([Topic(f"q{i}", f"query {i}") for i in range(4)])
    store.upsert_docs([Doc(f"d{i}", f"passage {KEYS[i % len(KEYS)]} number {i}") for i in range(N)])
    store.upsert_cases([Case(f"q{i % 4}", f"d{i}", "llm", i + 1) for i in range(N)])
    return store


def final(store: Store) -> dict:
    """Every judgment as the workspace holds it: label, grade, status, round, calls and provenance."""
    return {
        (j.qid, j.docid): (j.label, j.grade, j.status, j.round, j.calls, j.method, j.model,
                           json.dumps(json.loads(j.provenance), sort_keys=True))
        for j in store.judgments()
    }


def ray_client(store: Store, actors: int = 2, batch: int = 4) -> Client:
    from qrelkit.engines.ray import RayBackend

    backend = RayBackend.start(scripted.ScriptedModel(), parse_engine(f"ray(actors={actors}, batch={batch})"))
    return Client(backend, store=store, backoff_base=0.0)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The plain engine's result on the same cases (the reference)."""
    store = make_ws(tmp_path_factory.mktemp("plain") / "ws")
    summary = run_judging(store, "debate", Client(ScriptedBackend(scripted.debate_reply), store=store), concurrency=8)
    yield final(store), summary
    store.close()


@pytest.fixture(scope="module")
def ray_run(local_ray, tmp_path_factory):
    store = make_ws(tmp_path_factory.mktemp("ray") / "ws")
    client = ray_client(store)
    summary = run_judging(store, "debate", client, concurrency=8)
    client.backend.shutdown()  # its actors hold the 2 CPUs the next test's actors need
    yield store, summary, client.backend
    store.close()


def test_ray_engine_writes_the_plain_engines_judgments(plain, ray_run):
    assert final(ray_run[0]) == plain[0]


@pytest.mark.parametrize("key", ["judged", "escalations", "calls", "prompt_tokens", "completion_tokens"])
def test_ray_engine_accounts_as_the_plain_engine(plain, ray_run, key):
    assert ray_run[1].as_dict()[key] == plain[1].as_dict()[key]


def test_both_actors_answered_calls(ray_run):
    assert len(ray_run[2].calls_by_actor) == 2


def test_a_rerun_makes_no_calls(ray_run):
    store = ray_run[0]
    client = ray_client(store)
    summary = run_judging(store, "debate", client, concurrency=8)
    client.backend.shutdown()
    assert summary.calls == 0


def test_cache_hits_are_answered_by_the_driver_and_never_shipped(local_ray, ray_run, tmp_path):
    """A second method whose calls are all in the cache (the same prompts) ships nothing."""
    store = ray_run[0]
    client = ray_client(store)
    run_judging(store, "debate(rounds=1)", client, concurrency=8)  # not the same method: judged again...
    client.backend.shutdown()
    assert client.backend.batches == 0  # ...from the cache the first run wrote, by the driver


@pytest.fixture(scope="module", params=[1, 2], ids=["alone-replaced", "other-takes-over"])
def killed_run(request, local_ray, tmp_path_factory):
    """A run whose first actor is killed after 5 verdicts: with 1 actor a fresh one replaces it,
    with 2 the survivor takes the lost batch. One run per actor count for the tests that read it."""
    store = make_ws(tmp_path_factory.mktemp("killed") / "ws")
    client = ray_client(store, actors=request.param, batch=2)

    def progress(update):
        if update.done == 5 and not client.backend.failed_batches:
            ray.kill(client.backend.actors[0])

    run_judging(store, "debate", client, concurrency=8, progress=progress)
    client.backend.shutdown()
    yield store, client.backend
    store.close()


def test_an_actor_killed_mid_run_changes_nothing(plain, killed_run):
    assert final(killed_run[0]) == plain[0]


def test_the_killed_actors_batch_was_retried(killed_run):
    assert killed_run[1].failed_batches >= 1


def test_a_model_that_cannot_load_is_one_clear_error(local_ray):
    from qrelkit.engines.ray import RayBackend
    from qrelkit.errors import BackendError

    with pytest.raises(BackendError, match="could not load the model"):
        RayBackend.start(_broken_model, parse_engine("ray(actors=1)"))


def _broken_model():
    raise FileNotFoundError("no such file: /nowhere/model.gguf")


_broken_model.__module__ = scripted.__name__  # shipped by value with the scripted module
