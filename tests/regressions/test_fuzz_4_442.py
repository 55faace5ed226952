"""Fuzzer reproducer (tools/fuzz.py --seed 4, program 442).

Found: crash: worker died (exit status -11): segfault in ember/dispatcher/reflection.py write_back,
reading a reflected list (p1 or p3) that compiled code already freed; not deterministic
(about 2 runs in 3). Fixed when reflected lists moved to native write-back.
"""
# ruff: noqa: E501

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


from tools.fuzzing.pool import Worker  # noqa: E402

SOURCE = """\
import math

import numpy as np


def f(p0, p1, p2, p3):
    for i1 in p3:
        v2 = np.zeros((i1) % 6)
        p1[(i1) % len(p1)] = (i1 + -5)
        if ((i1, (0.0))[1] < min(2.0, (5e-324))):
            if ((float('-inf') != -5.0) and (-0.23 != (0.0))):
                v3 = [len(v2), i1, i1]
                v4 = np.arange((i1) % 6).copy().copy()
                v3.append(v3[((-7)) % len(v3)])
            p1.insert(i1, int(float('inf')))
    c5 = 0
    while c5 < 7:
        c5 += 1
        if (7.1 == (5e-324)):
            break
        v6 = ((c5 ** 1) if (c5 > 9.0) else (~-2))
        v6 = v6 * 7 + (c5 - 0)
        c7 = 0
        while c7 < 3 and ((-1e308) != v6):
            c7 += 1
            v8 = np.arange((c5) % 6).copy()
            c9 = 0
            while c9 < 8:
                c9 += 1
                v10 = len(v8)
            v11 = (-1e308)
            if (v11 > 7.7):
                v6 = v6 * 7 + (c7 ^ c5)
            elif (v6 in p3):
                v12, v13 = (v8[c7], p2.min())
                p0[(9) % p0.shape[0], c5] = (-v13)
    v14 = np.arange((2) % 6).copy()
    v15 = np.arange((7) % 6)
    c16 = 0
    while c16 < 5 and math.isnan(5.0):
        c16 += 1
        for i17 in range((c16) % 8, (7) % 8):
            v18 = np.zeros((c16) % 6)[c16:i17:2]
            v19 = [len(v15), i17]
        v20 = np.where(np.zeros((c16) % 6) > 7.0, np.zeros((c16) % 6), -4.373)
        v20[c16:c16] = p0[(-8) % p0.shape[0], (c16) % p0.shape[1]]
    if (not ((-7 >= -8.59) and math.isinf(math.sqrt(4.0)))):
        v15 *= ((2147483648) ** 0)
    else:
        for i21 in p3:
            v22 = ((np.zeros((i21) % 6) * (np.arange((i21) % 6) * -2.0)) * -6.81)
            for i23 in p3:
                p0 = ((p2 + p2) * np.zeros(((i21) % 4, (-2) % 4)))
                v24 = (i21 | i23)
            try:
                if (i21 < (0.0)) and (7.0 >= i21) and (-3.348 >= -4.66):
                    raise IndexError("fuzz")
            except ValueError:
                v25 = np.zeros(((i21) % 4, (i21) % 4))[i21:, ::-1]
                v14 *= v15
            finally:
                if ((-0.0) == i21):
                    break
        v26 = [v15.max(), (3 & -9), len(v15), np.sum(v15)]
    if (math.sin((1e308)) >= p0[(-7), 5]):
        p2 /= (abs(-5.2) - (5e-324))
        if math.isnan((3, -9.0)[1]):
            if ((abs(-3.4) % -4) > p2.shape[1]):
                v27 = (np.sum(v14) % 3)
        elif ((-1e308) > 1.0):
            if (8.47 <= -9.8) and (9.0 == -1) and (math.isinf((4.36 ** 3)) and (6.121 <= 6)):
                raise ValueError("fuzz")
    else:
        p2 /= math.log(-0.298)
        try:
            v28 = v14
        except OverflowError:
            if (not math.isnan(float('inf'))) and (-9.0 >= -1) and ((2147483648) >= 4):
                raise ZeroDivisionError("fuzz")
    try:
        v15[4] += min(4, 1)
    except (IndexError, ValueError):
        v29 = p3
        p2 = p2
    finally:
        c30 = 0
        while c30 < 1:
            c30 += 1
            p3[(c30) % len(p3)] = len(v14)
            v31 = len(p3)
            v31 = c30
    return p3
"""

JOB = {
    "source": SOURCE,
    "inputs": [
        "(np.array([[-14.0, -3.57, float('-inf')], [float('inf'), 0.1, float('inf')]], dtype=np.float64).reshape(2, 3), [17, 3, 63, 9223372036854775807, -6], np.array([[14.93, -2.25, -0.0, -17.0], [11.07, -4.075, -13.2456, -4.7583], [17.95, -2.2119, float('inf'), float('-inf')], [-11.876, -7.362, 10.469, 1.5]], dtype=np.float64).reshape(4, 4), [0, 2, -1, 16, 13], )",
        "(np.array([[], [], []], dtype=np.float64).reshape(3, 0), [-18, -10, 64], np.array([[float('inf'), 15.6, 4.48], [-10.8133, -12.484, 6.16], [5.0, 10.0, -7.4032]], dtype=np.float64).reshape(3, 3), [-15, -1, 100, -20], )",
    ],
    "functions": ["f"],
    "boundscheck": True,
    "memory": 20,
}


def test_fuzz_4_442():
    # The crash depended on the allocator's state: fresh processes, each under glibc's checked
    # malloc. Fixed by the native write-back of reflected lists (ember/dispatcher/
    # reflected_lists.py), which reads the native list before releasing it.
    for _ in range(2):
        worker = Worker(timeout=300)
        try:
            result = worker.run(JOB)
        finally:
            worker.close()
        assert result["status"] == "ok", result["detail"]
