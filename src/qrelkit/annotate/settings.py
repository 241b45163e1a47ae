"""Project settings of the annotation app, kept in the workspace meta table.

They live in the workspace (key ``annotate.settings``) rather than in flags of
``serve`` so that the CLI can change them while a server runs, and so that a
with/without-history comparison is a property of the project, recorded next
to the votes it produced.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Optional

from qrelkit.errors import UsageError

META_KEY = "annotate.settings"

TASKS = ("auto", "answer", "graded")


@dataclass(frozen=True)
class AnnotateSettings:
    hide_history: bool = False  # hide the debate history (with/without-history comparisons)
    history_ab: str = "off"  # off | case | annotator: half with history, half without (qrelkit.annotate.ab)
    votes: int = 3  # votes each case needs from distinct annotators
    attention: float = 0.1  # share of known-answer items among the served items
    exclude_failed: bool = True  # drop votes of annotators who fail attention checks
    # The pass rule. Default: the paper's "pass all" (one failed check fails the annotator).
    min_pass_rate: float = 1.0  # below this pass rate an annotator fails ...
    min_checks: int = 1  # ... once they answered at least this many checks
    attention_labels: str = "relevant"  # known labels checks use: relevant (the paper) | both
    task: str = "auto"  # auto (answers -> answer task, else graded) | answer | graded
    threshold: int = 2  # graded task: label = grade >= threshold
    qrels_threshold: Optional[int] = None  # relevance threshold of the original qrels; None: guess
    seed: int = 0  # placement of attention items
    session_hours: float = 12.0
    lease_minutes: float = 20.0  # how long a served case is held for its annotator
    secure_cookie: bool = True  # Secure flag on the session cookie
    link_days: float = 3.0  # a login link not used within this many days expires
    # Where people reach the app when it is not the address it listens on (behind
    # a TLS-terminating proxy): login links point there and POSTs must come from it.
    public_url: str = ""
    trust_proxy: bool = False  # take scheme and host from X-Forwarded-Proto/-Host (only behind a proxy that sets them)

    def validate(self) -> "AnnotateSettings":
        if self.votes < 1:
            raise UsageError(f"votes must be >= 1 (got {self.votes})")
        if not 0.0 <= self.attention < 1.0:
            raise UsageError(f"attention must be in [0, 1) (got {self.attention})")
        if not 0.0 <= self.min_pass_rate <= 1.0:
            raise UsageError(f"min_pass_rate must be in [0, 1] (got {self.min_pass_rate})")
        if self.min_checks < 1:
            raise UsageError(f"min_checks must be >= 1 (got {self.min_checks})")
        if self.history_ab not in ("off", "case", "annotator"):
            raise UsageError(f"history_ab must be off, case or annotator (got {self.history_ab!r})")
        if self.attention_labels not in ("relevant", "both"):
            raise UsageError(f"attention_labels must be relevant or both (got {self.attention_labels!r})")
        if self.task not in TASKS:
            raise UsageError(f"task must be one of {', '.join(TASKS)} (got {self.task!r})")
        if self.threshold not in (1, 2, 3):
            raise UsageError(f"threshold must be 1, 2 or 3 (got {self.threshold})")
        if self.session_hours <= 0 or self.lease_minutes <= 0:
            raise UsageError("session_hours and lease_minutes must be positive")
        if not self.link_days > 0:
            raise UsageError(f"link_days must be positive (got {self.link_days})")
        if self.public_url and public_origin(self.public_url) is None:
            raise UsageError(f"public_url must look like https://host[:port] (got {self.public_url!r})")
        return self

    def shows_history(self, qid: str, docid: str, user_id: Optional[int]) -> bool:
        """Whether this annotator sees this escalation's debate history (the A/B arms:
        :mod:`qrelkit.annotate.ab`)."""
        if self.history_ab == "case":
            return _half(self.seed, "case", qid, docid)
        if self.history_ab == "annotator":
            return user_id is not None and _half(self.seed, "annotator", user_id)
        return not self.hide_history

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Optional[dict]) -> "AnnotateSettings":
        """Unknown keys are ignored so that an older qrelkit can read a newer workspace."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (d or {}).items() if k in known})

    def updated(self, **changes: Any) -> "AnnotateSettings":
        return replace(self, **{k: v for k, v in changes.items() if v is not None}).validate()


def _half(seed: int, *parts: object) -> bool:
    """A seeded, stable coin: half of all keys get True."""
    import hashlib

    key = "\x00".join(str(p) for p in (seed, *parts)).encode()
    return hashlib.sha256(key).digest()[0] % 2 == 0


def public_origin(url: str) -> Optional[str]:
    """``scheme://host[:port]`` of an http(s) URL without a path below ``/``, else None
    (the app's pages link to ``/...``, so it cannot live below a path prefix)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (raises on a bad port)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    return f"{parts.scheme}://{parts.netloc.lower()}"


def load_settings(store) -> AnnotateSettings:
    return AnnotateSettings.from_dict(store.get_meta(META_KEY, {}))


def save_settings(store, settings: AnnotateSettings) -> None:
    store.set_meta(META_KEY, settings.validate().to_dict())
