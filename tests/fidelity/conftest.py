"""Prints how many fidelity cases behave identically to TensorFlow 1."""

from tests.fidelity import harness


def pytest_terminal_summary(terminalreporter):
    outcomes = harness.OUTCOMES
    total = sum(outcomes.values())
    if not total:
        return
    source = getattr(harness, "SOURCE", "TensorFlow")
    terminalreporter.write_line(
        f"fidelity: {outcomes['identical']} of {total - outcomes['known']} cases behave identically to {source}; "
        f"{outcomes['different']} differ; {outcomes['known']} known, deliberate differences (README)"
    )
