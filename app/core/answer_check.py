"""What a turn does with a candidate answer: recited instructions, unbacked numbers, no calculation.

The turn loop hands each answer the model finishes to :class:`AnswerCheck`; it says whether the
model is asked again (and appends that request), or records the answer and its verdict on the
turn's outcome and emits ``AnswerReady``. Its counters live as long as the turn.
"""

from __future__ import annotations

from fractions import Fraction

from app.core import events as ev
from app.core.act_check import DIGIT, ActChecks, CheckedTurn
from app.core.acting import REFUSAL_REASK, results_reask
from app.core.backend import BackendError
from app.core.deeds import undone_deed
from app.core.echo import ECHO_FAILURE, ECHO_REASK, EchoDetector
from app.core.failed_note import APP_SAID, down_note, with_failure_note
from app.core.messages import Message
from app.core.prompts import REASK_TEMPLATE
from app.core.tools import CheckResult, TurnFacts, Verdict, judge_verdict


class AnswerCheck(ActChecks):
    """One turn's answer checks; each kind of re-ask is bounded so a turn always ends."""

    def __init__(self, turn: CheckedTurn):
        super().__init__(turn)
        self.echoes = 0
        self.reasks = 0  # answers with unbacked numbers asked again
        self.earlier: Fraction | None = None  # this answer's result, when its verdict is verified

    def is_echo(self, answer: str, step_no: int) -> bool:
        """True when the reply only recites the prompt: asked once more, then the turn fails."""
        turn = self.turn
        prompt_texts = [turn.s.system_prompt, *(f"{t.name} {t.description}" for t in turn.specs)]
        if not EchoDetector(prompt_texts).is_echo(answer):
            return False
        turn.emit(
            ev.Notice, message=f"Step {step_no}: the model repeated its instructions instead of answering."
        )
        if self.echoes >= 1:
            raise BackendError(ECHO_FAILURE, category="echo")
        self.echoes += 1
        turn.messages.append(Message("user", ECHO_REASK))
        return True

    def needs_reask(self, answer: str, worked: bool) -> bool:
        """Check the candidate answer; True when the model should try again.

        A worked answer is not asked again for unbacked numbers: its calculations already ran,
        and a second try only writes the same steps again (its verdict says what is unchecked)."""
        turn = self.turn
        verifier = turn.s.verifier
        check = CheckResult(True) if verifier is None else verifier.check(answer, turn.all_sources())
        if verifier is not None and self._reask_unbacked(check, worked):
            return True
        verdict = self._verdict(answer, check) if verifier is not None else None
        if verdict is not None and verdict.kind == "not_calculated" and self._ask_to_calculate():
            return True
        stated = getattr(verifier, "stated_result", None)
        line = stated(answer, turn.user_text, turn.outcome.tool_calls) if stated is not None else ""
        if line and verifier is not None:
            turn.emit(
                ev.Notice,
                message="The model's answer stated no number; the answer is the calculator's last result.",
            )
            answer, check = line, verifier.check(line, turn.all_sources())
            verdict = self._verdict(answer, check)
        self._record(answer, check, verdict)
        return False

    def _reask_unbacked(self, check: CheckResult, worked: bool) -> bool:
        turn = self.turn
        attempts_left = not worked and self.reasks < turn.s.max_reasks
        will_reask = not check.verified and attempts_left
        turn.emit(
            ev.CheckFinished,
            attempt=self.reasks + 1,
            verified=check.verified,
            unbacked=check.unbacked,
            will_reask=will_reask,
            backing=check.backing,
        )
        if will_reask:
            self.reasks += 1
            numbers = ", ".join(check.unbacked)
            turn.messages.append(Message("user", REASK_TEMPLATE.format(numbers=numbers)))
        return will_reask

    def _record(self, answer: str, check: CheckResult, verdict: Verdict | None) -> None:
        turn = self.turn
        outcome = turn.outcome
        checked = verdict is not None
        states = getattr(turn.s.tools, "states", None)  # a supervisor's; a bare provider has none
        down = down_note(states() if callable(states) else (), turn.s.told_down)
        undone = bool(undone_deed(turn.user_text, outcome.tool_calls, turn.s.tools.list_tools()))
        answer = with_failure_note(
            answer, outcome.tool_calls, down, undone
        )  # after the check: the app's words
        outcome.answer, outcome.unbacked = answer, check.unbacked
        outcome.verdict = verdict.kind if verdict else None
        outcome.verified = None if verdict is None else verdict.kind == "verified"
        outcome.formula, outcome.basis = (verdict.formula, verdict.basis) if verdict else ("", "")
        outcome.backing = check.backing if checked else ()
        outcome.untrusted = check.untrusted if checked else ()
        if verdict is not None and outcome.shown_verdict == "verified":
            self.earlier = verdict.value
        turn.emit(
            ev.AnswerReady,
            text=answer,
            verified=outcome.verified,
            verdict=outcome.shown_verdict,
            formula=outcome.formula,
            basis=outcome.basis,
            unbacked=check.unbacked,
            backing=outcome.backing,
            untrusted=outcome.untrusted,
            value=str(self.earlier)
            if outcome.shown_verdict == "verified" and self.earlier is not None
            else "",
        )

    def ask_to_calculate_again(self) -> None:
        """After a worked answer was set aside: calculate, with the readings Calculon sees."""
        self.turn.messages.append(Message("user", self._calculate_reask()))

    def _ask_to_calculate(self) -> bool:
        """Once a turn: an answer with no calculation behind its number is asked again, with the
        readings Calculon sees in the question; the second answer is shown as it is."""
        if self.calculate_asked:
            return False
        self.calculate_asked = True
        turn = self.turn
        worked = [c for c in turn.outcome.tool_calls if not c.failed]
        # what the model read: a result with the app's count ("13 lines") holds a number
        if worked and not any(DIGIT.search(text) for text in self._read()):
            # the data is not in hand yet: asked for "the total value of all orders", the model
            # listed the tables, and made to calculate then, it looped inside evaluate({}) for
            # 512 tokens. It is asked to go on with the task instead.
            turn.emit(
                ev.Notice,
                message="No tool result holds a number yet; the model was asked to go on with the task.",
            )
            turn.messages.append(Message("user", results_reask(turn.user_text)))
            return True
        named = getattr(turn.s.verifier, "asks_an_operation", None)
        operation = named is not None and bool(named(turn.user_text))
        if not worked and turn.named and not operation:
            # a request to a server the question names ("Add a product called lamp to the shop
            # database: ... price 19.99, 6 in stock") is no sum: made to calculate, the 1.5B model
            # sent 19.99 + 6. Its next step calls that server's tools instead.
            turn.emit(
                ev.Notice,
                message="No tool was used for a request to a named server; the model was asked to use it.",
            )
            turn.messages.append(Message("user", REFUSAL_REASK))
            self.must_call = self.named_only = True
            return True
        if not worked and any(
            c.failed and not c.result.startswith(APP_SAID) for c in turn.outcome.tool_calls
        ):
            # the call failed at its server ("division by zero", "no such file"): the answer is about
            # that failure, and the app's line under it quotes the error; asked to calculate, a model
            # only repeats the call or guesses
            return False
        turn.emit(
            ev.Notice, message="No tool computed the answer's number; the model was asked to calculate it."
        )
        turn.messages.append(Message("user", self._calculate_reask()))
        # after another tool's data came back the next step must call a calculation: asked only,
        # Qwen2.5-Coder-1.5B wrote "1.25 + 2.40 = 1.25 + 2.40 = ..." for the prices it had read,
        # twice over; made to call with every tool on offer, it read the file again
        # Only where an operation is named: "on 3 October" in a note to remember is no sum to do,
        # and made to calculate, the model sent (3 + 3) * 3 / 3
        self.must_call = self.calculate_only = operation and bool(worked)
        return True

    def _verdict(self, answer: str, check: CheckResult) -> Verdict:
        turn = self.turn
        facts = TurnFacts(turn.user_text, tuple(turn.outcome.tool_calls), turn.s._earlier)
        return judge_verdict(turn.s.verifier, answer, check, facts)
