"""What strict JSON parsing costs over ``json.loads`` (issue 11: every JSON from outside).

``reference._strict_json.loads`` adds, to ``json.loads``: UTF-8 decoding without BOM, hooks that
refuse ``NaN``/``Infinity`` and overflowing floats, and, when a document has more brackets than
the depth bound, the depth check (C-speed string operations). Measured on the two shapes the
harness parses most: a ``POST /v1/evaluate`` answer of 1 000 results, and one block unit line
(the audit's slow path, the play checks' block reads). Best of 7 repeats, in microseconds.

    python benchmarks/strict_json.py
"""

from __future__ import annotations

import json
import os
import timeit
from collections.abc import Callable
from functools import partial

from reference._strict_json import loads

ANSWER = json.dumps(
    {
        "results": [
            {
                "prize_cents": 100,
                "wins": [{"robot": 3, "symbol": "blue_diamond", "amount_cents": 100}],
            }
            for _ in range(1000)
        ]
    }
).encode()
LINE = (
    b'{"index":123456,"prize_cents":500,"ticket":"OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"}'
)


def best_us(function: Callable[[], object], number: int) -> float:
    return min(timeit.repeat(function, number=number, repeat=7)) / number * 1e6


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f}")
    for name, data, number in (
        ("evaluate answer, 1000 results", ANSWER, 50),
        ("unit line", LINE, 20000),
    ):
        plain = best_us(partial(json.loads, data), number)
        strict = best_us(partial(loads, data), number)
        print(f"{name}: json.loads {plain:.1f} us, strict {strict:.1f} us ({strict / plain:.2f} x)")


if __name__ == "__main__":
    main()
