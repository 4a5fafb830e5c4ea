"""The work one expression may make the calculator do, counted as it is computed.

The digit cap (:data:`~app.servers.exact.MAX_RESULT_DIGITS`) bounds each intermediate
result, not how many of them there are: a thousand additions of fractions with
9,000-digit denominators each stay under the cap and still take seconds, because every
one of them runs a gcd on numbers that long. Each step is charged about what it costs,
``1 + (digits / 1000) ** 2`` for the digits of its operands (big-integer gcd and
multiplication grow a little slower than the square), and an expression that spends
:data:`LIMIT` is refused as too costly; on one core the most expensive expression that
fits takes well under a second.
"""

from __future__ import annotations

from fractions import Fraction

from app.servers.arith import digits_of
from app.servers.exact import CalcError

LIMIT = 150_000.0  # cost units; a step on two 10,000-digit fractions costs about 400


class Budget:
    def __init__(self, limit: float = LIMIT) -> None:
        self.limit = limit
        self.spent = 0.0
        self.steps = 0

    def charge(self, *operands: Fraction, result_digits: int = 0) -> None:
        """Pay for one step on ``operands`` (and a result of ``result_digits``, for a power)."""
        digits = sum(digits_of(x) for x in operands) + result_digits
        self.spent += 1 + (digits / 1000) ** 2
        self.steps += 1
        if self.spent > self.limit:
            raise CalcError(
                f"the expression is too costly to compute: after {self.steps} steps on numbers"
                f" of up to {digits:,} digits it has used its whole budget; split it into smaller steps"
            )
