"""Golden scenarios: the reference engine reproduces every case of shared/conformance exactly."""

import pytest
from conftest import CONFORMANCE, CONFORMANCE_FILES

from barbaron.scenario import load_scenario, play_scenario


def test_conformance_suite_is_present():
    assert len(CONFORMANCE_FILES) >= 300, f"expected the conformance suite in {CONFORMANCE}"


@pytest.mark.parametrize("path", CONFORMANCE_FILES, ids=lambda p: p.stem)
def test_reference_engine_reproduces_case(path):
    scenario = load_scenario(path)
    outcome, _ = play_scenario(scenario)
    got = outcome.to_dict()
    for key, expected in scenario.expect.items():
        assert got[key] == expected, f"{key} differs"
