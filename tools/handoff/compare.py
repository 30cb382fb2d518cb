"""The hand-off's one judgement: is another engine's answer the parallel step's?

Pure functions, no engine needed: `test_compare.py` runs them on hand-made answers,
and `engines.py` runs them on Spark's and DataFusion's. `difference` is also the
peers' check (`tools/peers/peers.py`, against gen's reference): one judgement of an
answer for every tool, on the standard library alone, so that either tool's virtual
environment imports it.

The expected answer is the parallel step's `--json` (a step of the ladder, parsed
with `json.loads`): `{"<key>": {"count": N, "sum": S}, ...}`, every key written as
the steps write keys (valid UTF-8 as it is, a backslash as two, a byte that is not
UTF-8 as `\\xNN`), `S` the exact decimal sum rounded to an `f64`, `null` for a group
with no value (SQL NULL), or the string "inf" or "-inf" for a sum past `f64`.

An engine's answer is a dict from its key (a `str`, `bytes`, `bool`, `int`, `date`,
or None) to `(count, sum)`, the sum a `Decimal` (an exact SUM over a decimal column),
a `float`, an `int`, or None. `difference` says whether the two are the same answer:
the same groups, every count equal, every sum within `SUM_TOLERANCE` of the step's,
relatively, and NULL where the step says null.
"""

import datetime
import math
from decimal import Decimal

# Relative tolerance of a sum against the step's: far above the error of any order of
# f64 additions over these files (about 1e-12), far below one row's value.
SUM_TOLERANCE = Decimal("1e-9")


def key_text(key):
    """An engine's key as the steps print it (harness's `key_text`): text as it is but
    for the backslash, written twice; each byte of a sequence that is not UTF-8 as
    `\\xNN`; a boolean as `true`/`false`; a date as `YYYY-MM-DD`; an integer in decimal.
    None (a NULL key) stays None: the steps have no NULL key (theirs is ``""``), so it
    can only be another group."""
    if key is None:
        return None
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, datetime.date):
        return key.isoformat()
    if isinstance(key, (bytes, bytearray, memoryview)):
        # surrogateescape turns each byte that is not part of valid UTF-8 into one
        # code point U+DC80..U+DCFF, which no valid text contains.
        key = bytes(key).decode("utf-8", errors="surrogateescape")
    if isinstance(key, str):
        out = []
        for ch in key:
            code = ord(ch)
            if 0xDC80 <= code <= 0xDCFF:
                out.append(f"\\x{code - 0xDC00:02x}")
            elif ch == "\\":
                out.append("\\\\")
            else:
                out.append(ch)
        return "".join(out)
    raise TypeError(f"a key of type {type(key).__name__}: {key!r}")


def as_decimal(value):
    """A sum as an exact Decimal: a Decimal as it is, an int exactly, a float as the
    exact value of its bits' shortest decimal (what `repr` prints), None as None."""
    if value is None or isinstance(value, Decimal):
        return value
    if isinstance(value, bool):
        raise TypeError(f"a sum of type bool: {value!r}")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else Decimal(value)
    if isinstance(value, str) and value in ("inf", "-inf"):
        return Decimal(value)  # the steps' JSON for a sum past f64
    raise TypeError(f"a sum of type {type(value).__name__}: {value!r}")


# ANCHOR: difference
def difference(answer, expected):
    """None when the engine's `answer` ({key: (count, sum)}) is the step's `expected`
    (its parsed --json); else the first difference, in words."""
    got = {}
    for key, (count, total) in answer.items():
        text = key_text(key)
        if text in got:
            return f"two groups print as the key {text!r}"
        got[text] = (count, total)
    if set(got) != set(expected):
        missing = sorted(set(expected) - set(got), key=repr)[:3]
        extra = sorted(set(got) - set(expected), key=repr)[:3]
        return f"other groups: missing {missing}, unexpected {extra}"
    for key in sorted(expected):
        count, total = got[key]
        want = expected[key]
        if count != want["count"]:
            return f"group {key!r}: count {count}, expected {want['count']}"
        total, exact = as_decimal(total), as_decimal(want["sum"])
        if (total is None) != (exact is None):
            return f"group {key!r}: sum {total}, expected {exact}"
        if exact is None:
            continue
        if exact.is_infinite() or total.is_infinite():
            if total != exact:
                return f"group {key!r}: sum {total}, expected {exact}"
            continue
        error = abs(total - exact)
        if error > SUM_TOLERANCE * abs(exact):
            relative = error / abs(exact) if exact else error
            return f"group {key!r}: sum {total}, expected {exact} (relative error {relative:.2e})"
    return None
# ANCHOR_END: difference


def same_bits(answer, expected):
    """How many of the answer's sums, rounded to the nearest f64, are the step's sum
    bit for bit: all of them for an exact SUM over a decimal column (the step's sum is
    the exact sum rounded to f64), fewer for a sum of f64s added in another order."""
    same = 0
    for key, (_, total) in answer.items():
        want = expected.get(key_text(key), {}).get("sum")
        if total is None or want is None or isinstance(want, str):
            same += total is None and want is None
            continue
        same += float(total) == float(want)
    return same
