"""Price tables: dollars per million input/output tokens, per model id.

Costs are computed on our side from token counts because servers do not
report money, and a budget must be checkable before the invoice arrives.
A price file (TOML or JSON) maps model ids to ``{input = .., output = ..}``;
keys may be the canonical id (``openai:gpt-4o-mini``) or the bare model name.
``QRELKIT_PRICES`` names a default file. Local models always cost zero.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Mapping, Union

from qrelkit.errors import UsageError
from qrelkit.llm.base import Prices

PriceSpec = Union[None, Prices, Mapping[str, object], str, os.PathLike]

ZERO = Prices()


def _to_prices(model: str, v: object) -> Prices:
    if isinstance(v, Prices):
        return v
    if isinstance(v, Mapping):
        try:
            return Prices(
                input_per_mtok=float(v.get("input", v.get("input_per_mtok", 0.0))),  # type: ignore[arg-type]
                output_per_mtok=float(v.get("output", v.get("output_per_mtok", 0.0))),  # type: ignore[arg-type]
            )
        except (TypeError, ValueError) as e:
            raise UsageError(f"price for {model!r}: {e}") from None
    raise UsageError(f"price for {model!r} must be a table with 'input' and 'output' ($ per million tokens)")


def load_price_file(path: Union[str, os.PathLike]) -> dict[str, Prices]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise UsageError(f"{p}: cannot read price file: {e.strerror}") from None
    import tomllib  # a price file is rare; its parser is not worth importing with every client

    try:
        data = tomllib.loads(raw.decode()) if p.suffix.lower() == ".toml" else json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{p}: not a valid price file: {e}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{p}: a price file maps model ids to {{input, output}}")
    return {str(k): _to_prices(str(k), v) for k, v in data.items()}


def resolve_prices(model_id: str, prices: PriceSpec = None) -> Prices:
    """The Prices for one model from whatever the caller configured (zero when unknown)."""
    if model_id.startswith("local:") or model_id == "local":
        return ZERO
    if prices is None:
        env = os.environ.get("QRELKIT_PRICES")
        if not env:
            return ZERO
        prices = env
    if isinstance(prices, Prices):
        return prices
    table: Mapping[str, object]
    if isinstance(prices, (str, os.PathLike)):
        table = load_price_file(prices)
    else:
        table = prices
    bare = model_id.split(":", 1)[1] if ":" in model_id else model_id
    for key in (model_id, bare):
        if key in table:
            return _to_prices(key, table[key])
    return ZERO
