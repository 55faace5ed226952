"""Spots straight-line (SLP) vectorization at a loss in an optimized module: consumes the module,
produces a yes/no for optimizing it again without SLP (ember/codegen/library.py).

A loop keeping both a running minimum and a running maximum (`lo = min(lo, x)`,
`hi = max(hi, x)`) has no vectorizable recurrence, so the loop vectorizer leaves it; the SLP
vectorizer then packs the `<` and `>` compares of the min and max lanes into one vector compare
with alternating predicates, blended through a shuffle of the two masks. On AVX-512 each blend
moves the masks to vector registers and back, on the loop-carried chain: 4-5x slower than the
independent scalar minsd/maxsd chains (Numba does not run SLP at all).
"""

from __future__ import annotations

import re

# A shuffle of compare masks (SLP's alternate predicates) whose result chooses a select's lanes.
_MASK_SHUFFLE = re.compile(r"(%[\w.$-]+) = shufflevector <\d+ x i1> ")


def selects_alternate_compares(module) -> bool:
    """True when a vector `select` of `module` takes its lanes from a shuffle of two compare
    masks: min and max (or other compares) packed together by the SLP vectorizer."""
    text = str(module)
    if "x i1> " not in text or "shufflevector <" not in text:
        return False
    for match in _MASK_SHUFFLE.finditer(text):
        if re.search(rf"select <\d+ x i1> {re.escape(match.group(1))},", text):
            return True
    return False
