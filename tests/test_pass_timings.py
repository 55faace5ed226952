"""`LLVM_PASS_TIMINGS`: LLVM's per-pass report and the machine-code time of a specialization, in
`get_metadata(sig)['llvm_pass_timings']` (ember/codegen/pass_timings.py)."""

import ember
from ember import config


def triangle_sum(n):
    c = 0
    for i in range(n):
        for j in range(i):
            c += j
    return c


def test_pass_timings_are_recorded_when_asked(monkeypatch):
    monkeypatch.setattr(config, "LLVM_PASS_TIMINGS", True)
    compiled = ember.njit(triangle_sum)
    assert compiled(10) == triangle_sum(10)
    timings = compiled.get_metadata(compiled.signatures[0])["llvm_pass_timings"]
    names = [record.name for record in timings.list_records()]
    assert names[0] == "Module passes (full optimization)"
    assert "Finalize object" in names
    assert abs(timings.get_total_time() - sum(r.seconds for r in timings.list_records())) < 1e-12
    text = str(timings)
    assert "Pass execution timing report" in text  # LLVM's own report of the pipeline
    assert "Finalize object" in text
    assert timings.summary().startswith("Total ")


def test_no_pass_timings_by_default(monkeypatch):
    monkeypatch.setattr(config, "LLVM_PASS_TIMINGS", False)
    compiled = ember.njit(triangle_sum)
    compiled(5)
    assert "llvm_pass_timings" not in compiled.get_metadata(compiled.signatures[0])
