"""One model step on the worker thread: fit the prompt, constrain, decode, parse.

When Calculon mode is on, tools are offered and the step answers a user message
that contains a digit, the grammar allows only a tool call (the "numbers" call
policy; "always" forces a call after every user message, "auto" never does): a small model then
reaches for the calculator instead of guessing, and the turn loop's check still
judges the final answer. After a tool result the model may answer or call again;
a call it already made this turn (same tool, same arguments) is decoded again as
an answer, since its result is already in the conversation. A cap on calls per
user message (the built-in 270M model gets 1: it does not plan several steps, it
walks down the tool list) turns the step after the last allowed call into an answer.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import llama_cpp

from app.core.backend import BackendError, Chunk, ModelRequest, StepDone, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local.answer_forms import (
    answer_units,
    answered_this_turn,
    calls_this_turn,
    formulas,
    head_forms,
    last_result_forms,
    repeats_earlier_call,
)
from app.llm.local.backed import BackedForms, backed_forms, with_schema_numbers
from app.llm.local.call_operands import operands_for
from app.llm.local.calls import parse_calls
from app.llm.local.conversation import build_turns, flatten, message_groups
from app.llm.local.cut_results import cut_notice, cut_to_fit
from app.llm.local.decoded import DecodeResult
from app.llm.local.decoder import Decoder, shared_prefix
from app.llm.local.fewshot import example_messages, family_examples
from app.llm.local.formats import ChatFormat
from app.llm.local.held_places import held_to_places
from app.llm.local.hinted import composed_answer, composed_note, hinted_call
from app.llm.local.operands import Operands
from app.llm.local.phases import PhaseSetup
from app.llm.local.prompt_cache import PromptCache, state_key
from app.llm.local.repeat import after_repeat
from app.llm.local.sampling import GrammarError
from app.llm.local.schema_grammar import StepGrammar, answer_only
from app.llm.local.step_grammars import StepGrammars
from app.llm.local.step_rules import (
    StepPolicy,
    forces_call,
    format_notice,
    in_calculon_mode,
    stop_notices,
    stops_for,
    trim_notice,
)
from app.llm.local.turn_states import MIN_GAIN, TurnStates
from app.llm.local.unbacked import without_unbacked_options
from app.llm.local.worked_step import WorkedStep

logger = logging.getLogger(__name__)
_DIGIT = re.compile(r"\d")
Emit = Callable[[Chunk], None]
DEAD_END_NOTICE = (
    "Calculon's number rules left the model no way to finish this step; it ran again without them: "
    "check the numbers of its call."
)


class StepRunner:
    def __init__(
        self,
        model: llama_cpp.Llama,
        chat_format: ChatFormat,
        policy: StepPolicy,
        *,
        bos_text: str = "",
        saved: tuple[PromptCache, Path] | None = None,  # where the prompt state is kept, and the model file
        turns: TurnStates | None = None,  # the states after recent answers, for conversations continued
    ):
        self.model, self.format, self.policy = model, chat_format, policy
        self.saved, self.turns = saved, turns
        self.decoder = Decoder(model)
        self.last: DecodeResult | None = None
        self._bos_text = bos_text
        self.grammars = StepGrammars(self.decoder.picker, chat_format.syntax, chat_format.thinks)
        self._reported_relaxed: set[str] = set()
        self.worked = WorkedStep(self)
        self._told_format = False

    def run(self, request: ModelRequest, emit: Emit, stop: threading.Event) -> None:
        hinted = self._hinted(request)
        if hinted is not None:
            emit(ToolCallChunk(hinted[0]))
            emit(StepDone(tokens=0, notices=(hinted[1],)))
            return
        composed = composed_answer(request) if self.policy.hinted_calls else None
        if composed is not None:
            emit(TextChunk(composed))
            emit(StepDone(tokens=0, notices=(composed_note(request.formula),)))
            return
        if self.policy.reader == "model" and request.backed is not None and self.worked.applies(request):
            self.worked.run(request, emit, stop)
            return
        prompt, notices = self.fit(request, listed=not self._answers_only(request))
        if request.tools and not self._told_format:
            self._told_format = True
            notices.append(format_notice(self.format))
        forms = backed_forms(request.backed) if request.backed is not None else None
        if forms is not None:
            forms = with_schema_numbers(forms, (tool.input_schema for tool in request.tools))
        grammar = self._grammar(request, forms, notices)
        try:
            result = self._decode(prompt, grammar, emit, stop)
        except GrammarError:
            if forms is None:
                raise
            # Calculon's number rules can leave a call no way on: "head" of read_text_file is a
            # number, and a question with none gives it nothing to take (seen: "the tool-call grammar
            # allows no next token" ended a real task). The step runs again without them, and says so.
            logger.warning("the step's grammar reached a dead end; decoding again without the number rules")
            notices.append(DEAD_END_NOTICE)
            held = self.held(request, request.tools)
            grammar = self.grammar_for(held, forced=forces_call(request, self.policy))
            result = self._decode(prompt, grammar, emit, stop)
        calls = self._calls_of(result, request.tools)
        fresh = self._fresh(calls, request)
        if calls and not fresh and not stop.is_set():
            result, fresh = after_repeat(self, request, prompt, calls, forms, notices, emit, stop)
        if stop.is_set():
            return
        notices.extend(self._relaxed_notices(grammar))
        for call in fresh:
            emit(ToolCallChunk(call))
        notices.extend(stop_notices(result))
        if self.turns is not None and result.kind == "answer" and not fresh and not stop.is_set():
            self.turns.keep(self.model)  # before StepDone: a command that exits after it keeps it too
        emit(StepDone(tokens=result.tokens, notices=tuple(notices)))

    def _fresh(self, calls: Sequence[ToolCall], request: ModelRequest) -> tuple[ToolCall, ...]:
        return tuple(c for c in calls if not repeats_earlier_call(c, request.messages, request.backed))

    def _hinted(self, request: ModelRequest) -> tuple[ToolCall, str] | None:
        """Calculon mode's own call for the user's words, where the session read a formula in
        them and this step answers them (see :mod:`app.llm.local.hinted`)."""
        hint = request.formula
        if (
            hint is None
            or not self.policy.hinted_calls
            or not in_calculon_mode(request)
            or not request.messages
        ):
            return None
        if request.reading_due and hint.source == "ranked" and self.policy.reader == "model":
            return hinted_call(hint, request.tools)  # its own reading computed nothing, asked or not
        last = request.messages[-1]
        if last.role != "user" or request.backed is None or last.text not in request.backed:
            return None  # a step after a call, or the app's re-ask: not the user's words
        # "And half of it?" has no digit, so no call is forced; its transcription still is one
        if hint.source != "transcription" and not forces_call(request, self.policy):
            return None
        if hint.source != "transcription" and self.policy.reader == "model":
            return None  # the model reads the story itself, with the ranker's reading as evidence
        return hinted_call(hint, request.tools)

    def _answers_only(self, request: ModelRequest) -> bool:
        """Whether this step may only answer: the model made its calls for this message. Where
        the turn requires a call (``must_call``) and every call so far was refused in the app, the
        cap does not hold: it keeps a second call from undoing what a server said, and no server
        has said anything. Asked "How many products are in the shop database?", the built-in's one
        call was refused (it sent the schema's own description as the query), and it was held to
        answering, twice. Told "database is locked" by the server, it is held still: made to call
        again, it appended "add_insight" to the database's memo instead of saying why."""
        limit = self.policy.max_tool_calls
        if limit is None or calls_this_turn(request.messages, request.backed) < limit:
            return False
        return not (request.must_call and not answered_this_turn(request.messages, request.backed))

    def _grammar(
        self, request: ModelRequest, forms: BackedForms | None, notices: list[str]
    ) -> StepGrammar | None:
        if not request.tools:
            return answer_only(forms) if forms is not None else None
        limit = self.policy.max_tool_calls
        if self._answers_only(request):
            # the model's normal course, not news to the user: said in the log only
            logger.debug("this model may make %d tool call(s) per message; answering now", limit)
            if forms is None:
                return answer_only(None, syntax=self.format.syntax)
            result, head, units = last_result_forms(request), head_forms(request), answer_units(request)
            return answer_only(forms, result, head, units, formulas(request), syntax=self.format.syntax)
        ops = operands_for(request, forms, one_call=limit == 1)
        tools = without_unbacked_options(request.tools, forms) if forms is not None else request.tools
        tools = self.held(request, tools)
        return self.grammar_for(tools, forced=forces_call(request, self.policy), forms=forms, ops=ops)

    def held(self, request: ModelRequest, tools: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]:
        """``tools`` with their place arguments held to the places the conversation gave."""
        if self.format.syntax.form != "json":  # Gemma's own call grammar keeps no string patterns
            return tuple(tools)
        return held_to_places(tools, (m.text for m in request.messages if m.role != "assistant"))

    def _decode(
        self,
        prompt: list[int],
        grammar: StepGrammar | None,
        emit: Callable[[Chunk], None],
        stop: threading.Event,
    ) -> DecodeResult:
        setup = PhaseSetup(grammar, stops_for(self.format), self.format.thinks, self.format.syntax)
        if self.turns is not None:
            have = shared_prefix(self.model.input_ids[: self.model.n_tokens], prompt)
            if len(prompt) - have >= MIN_GAIN:  # much to read: a saved conversation may hold it
                self.turns.resume(self.model, prompt, have)
        budget = min(self.policy.max_tokens, self.decoder.n_ctx - len(prompt))
        self.last = self.decoder.run(prompt, setup, budget, emit, stop)
        return self.last

    def _calls_of(self, result: DecodeResult, tools: Sequence[ToolSpec]) -> tuple[ToolCall, ...]:
        """The calls the step wrote: one, or several where the model's syntax lists them."""
        if result.kind != "call":
            return ()
        note = f"the call was cut off ({result.stop_reason} after {result.tokens} tokens)"
        complete = result.call_complete
        return parse_calls(result.call_text, tools, self.format.syntax, complete=complete, cut_off_note=note)

    def grammar_for(
        self,
        tools: Sequence[ToolSpec],
        *,
        forced: bool,
        forms: BackedForms | None = None,
        ops: Operands | None = None,
    ) -> StepGrammar:
        return self.grammars.grammar_for(tools, forced=forced, forms=forms, ops=ops)

    def fit(self, request: ModelRequest, *, listed: bool = True) -> tuple[list[int], list[str]]:
        """Prompt tokens that leave room to answer, dropping the oldest exchanges if needed.
        ``listed=False``: a step that may only answer is not shown the tool list (see render)."""
        n_ctx = self.decoder.n_ctx
        limit = n_ctx - min(self.policy.max_tokens, n_ctx // 2)
        groups = message_groups(request.messages)
        tokens: list[int] = []
        for dropped in range(max(1, len(groups))):
            kept = flatten(groups[dropped:])
            tokens = self.tokenize(request.system, kept, request.prompt_tools, listed=listed)
            if len(tokens) <= limit:
                return tokens, [trim_notice(groups[:dropped], n_ctx)] if dropped else []
        cut = self._cut(request, flatten(groups[-1:]), limit, listed)  # one long result in the newest
        if cut is not None:
            older = [trim_notice(groups[:-1], n_ctx)] if len(groups) > 1 else []
            return cut, [*older, cut_notice(n_ctx)]
        raise BackendError(
            f"The message is too long for the model's context: the prompt needs {len(tokens)} tokens and "
            f"{limit} are available (context {n_ctx}, {n_ctx - limit} kept for the reply). "
            "Shorten the message or raise the context size in Settings.",
            category="context",
        )

    def _cut(
        self, request: ModelRequest, newest: tuple[Message, ...], limit: int, listed: bool
    ) -> list[int] | None:
        """The prompt of the newest exchange alone with its longest tool result cut to fit, or None."""

        def count(messages: tuple[Message, ...]) -> int:
            return len(self.tokenize(request.system, messages, request.prompt_tools, listed=listed))

        cut = cut_to_fit(newest, limit, count, self.decoder.n_ctx)
        return (
            None if cut is None else self.tokenize(request.system, cut, request.prompt_tools, listed=listed)
        )

    def prefill(self, system: str, stop: threading.Event) -> int:
        """Decode the opening every prompt shares (instructions and worked examples) ahead of
        the first question, so it is answered as fast as the ones after it; the tokens decoded."""
        examples = family_examples(self.policy.family) if self.policy.family else []
        if not examples:
            return 0
        tokens = self._tokens(self.format.render(build_turns(system, [], (), examples)))
        if len(tokens) >= self.decoder.n_ctx - min(self.policy.max_tokens, self.decoder.n_ctx // 2):
            logger.warning("a %d-token prompt opening leaves no room to answer: not read", len(tokens))
            return 0  # the question then says the context is too small, in words
        return self.open(tokens, stop)

    def open(self, tokens: list[int], stop: threading.Event) -> int:
        """Hold the state after ``tokens`` (a prompt opening every question shares): kept from the
        last step, loaded from the saved state, or decoded and then saved; the tokens decoded."""
        if shared_prefix(self.model.input_ids[: self.model.n_tokens], tokens) == len(tokens):
            return 0
        if self.saved is None:
            return self.decoder.prime(tokens, stop)
        cache, model_path = self.saved
        key = state_key(model_path, tokens, self.decoder.n_ctx)
        if cache.restore(self.model, key, tokens):
            logger.info("restored the saved state of the %d-token prompt opening", len(tokens))
            return 0
        decoded = self.decoder.prime(tokens, stop)
        if not stop.is_set():
            cache.save(self.model, key, tokens)
        return decoded

    def render(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec], *, listed: bool = True
    ) -> str:
        """The prompt. Unlisted, a step after worked examples leaves out the tool list, which
        sits after them: it cannot call, and a fresh process would read a few hundred tokens
        for nothing. The examples stay, so the opening is the cached one word for word; a base
        model shown the conversation without them repeated its instructions. Without examples
        the list is part of the opening, and stays."""
        examples = example_messages(self.policy.family, tools) if self.policy.family else []
        shown = tools if listed or not examples else ()
        if self.format.native and not examples:
            return self.format.render_request(system, messages, shown)
        return self.format.render(build_turns(system, messages, shown, examples))

    def tokenize(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec], *, listed: bool = True
    ) -> list[int]:
        return self._tokens(self.render(system, messages, tools, listed=listed))

    def _tokens(self, text: str) -> list[int]:
        has_bos = bool(self._bos_text) and text.startswith(self._bos_text)
        return self.model.tokenize(text.encode("utf-8"), add_bos=not has_bos, special=True)

    def _relaxed_notices(self, grammar: StepGrammar | None) -> list[str]:
        fresh = [name for name in (grammar.relaxed if grammar else ()) if name not in self._reported_relaxed]
        self._reported_relaxed.update(fresh)
        return [
            f"Tool {name}: its input schema could not be turned into a decoding grammar; "
            "its arguments are only checked after generation."
            for name in fresh
        ]
