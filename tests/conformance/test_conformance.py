"""The official MCP conformance suite's client scenarios, run against the ``calculon`` CLI.

Every client scenario of the 2026-07-28 and 2025-11-25 requirement sets (and the ones each set
runs without scoring, such as extensions) runs once for the module, each printed with pass or
fail in the run's closing summary and, for a failure, the checks that failed.
``expected_pass.txt`` lists the scenarios that pass today: one of them failing is a regression
and fails the test. The goal is every required scenario passing; the summary says which still
do not.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conformance import suite
from tests.conftest import SUMMARY

pytestmark = pytest.mark.slow

EXPECTED_PASS = Path(__file__).with_name("expected_pass.txt")
# Two scenarios at a time: each is a Node harness and a few short CLI processes, mostly waiting.
WORKERS = 4


@pytest.fixture(scope="module")
def scenarios() -> list[suite.Scenario]:
    folder = suite.installed()
    if isinstance(folder, str):
        pytest.skip(f"the conformance suite is unavailable: {folder}")
    return [found for revision in suite.REVISIONS for found in suite.client_scenarios(folder, revision)]


@pytest.fixture(scope="module")
def outcomes(scenarios: list[suite.Scenario]) -> dict[str, suite.Outcome]:
    folder = suite.installed()
    assert not isinstance(folder, str)
    with ThreadPoolExecutor(WORKERS) as pool:
        done = pool.map(lambda scenario: suite.run_scenario(folder, scenario), scenarios)
        return {str(outcome.scenario): outcome for outcome in done}


def _summary(results: dict[str, suite.Outcome]) -> str:
    lines = [f"MCP conformance {suite.VERSION}, client scenarios against the calculon CLI:"]
    lines += [_line(outcome) for outcome in results.values()]
    for revision in suite.REVISIONS:
        for scored in (True, False):
            chosen = [o for o in results.values() if o.scenario.revision == revision]
            chosen = [o for o in chosen if (o.scenario.not_scored == "") == scored]
            what = "required" if scored else "not scored"
            lines.append(f"{revision} {what}: {sum(o.passed for o in chosen)} of {len(chosen)} pass")
    return "\n".join(lines)


def _line(outcome: suite.Outcome) -> str:
    mark = "PASS" if outcome.passed else "FAIL"
    extra = f" ({outcome.scenario.not_scored})" if outcome.scenario.not_scored else ""
    line = f"  {mark} {outcome.scenario}{extra}  {outcome.seconds:.1f} s"
    reasons = () if outcome.passed else outcome.reasons[:6]  # a pass's client lines are no news
    return "\n".join([line, *(f"        {reason}" for reason in reasons)])


def _expected() -> set[str]:
    lines = (line.split("#")[0].strip() for line in EXPECTED_PASS.read_text().splitlines())
    return {line for line in lines if line}


def test_the_expected_pass_list_names_only_scenarios_the_suite_runs(scenarios: list[suite.Scenario]) -> None:
    assert _expected() - {str(scenario) for scenario in scenarios} == set()


@pytest.mark.timeout(1200)  # the module's one run of every scenario happens in this test's setup
def test_every_scenario_that_passed_before_still_passes(
    outcomes: dict[str, suite.Outcome], record_property: Callable[[str, object], None]
) -> None:
    # Every scenario with pass or fail, in the run's closing summary (tests/conftest.py), so the
    # CI log shows them also where a worker process ran this test.
    record_property(SUMMARY, _summary(outcomes))
    regressed = {name: outcomes[name].reasons for name in sorted(_expected()) if not outcomes[name].passed}
    assert regressed == {}
