"""What a tool looks like to the rankers: words for BM25, a sentence for embeddings.

Both see the same fields: the tool's name split into words (snake_case,
camelCase and dotted names), its description, and each parameter's name and
description, nested objects included. BM25 also reads the server's name, and matches ordered
pairs of neighbouring words (:func:`pairs`), so word order counts where the words alone
are the same: "fahrenheit to celsius" is not "celsius to fahrenheit".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from app.core.tools import ToolInfo

DOC_VERSION = "3"  # bump when the document text changes: cached indexes depend on it

_IDENTIFIER_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z]+|\d+")
_CONTRACTION = re.compile(r"n['’]t\b|['’](?:s|re|ve|ll|d|m)\b", re.IGNORECASE)  # "what's" is "what"
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.IGNORECASE)  # "12th" is a number, not "th"
_DEGREES = {"c": " celsius ", "f": " fahrenheit "}
_DEGREE_SIGN = re.compile(r"[°º]\s*([CF])\b", re.IGNORECASE)  # °C is unambiguous; a bare C is not
# A pair never spans a sentence, a clause or a bracket; a dot inside a number splits nothing.
_SEGMENT = re.compile(r"[\n,;:!?()\[\]{}\"]|(?<!\d)\.|\.(?!\d)")
# People type arithmetic as symbols. Between numbers, several operators make an expression
# and one operator reads as its word; in tool texts symbols stay as they are (examples).
_NUMBER = r"\d[\d.,]*%?"
_FORMULA = re.compile(rf"[(\s]*{_NUMBER}(?:[\s()]*[-+*/^×÷][\s()]*{_NUMBER}){{2,}}[)\s]*")
_OPERATOR = re.compile(r"(?<=\d)\s*([*×x^÷])\s*(?=\d)")
_OPERATOR_WORDS = {"*": " times ", "×": " times ", "x": " times ", "^": " power ", "÷": " divided "}
_MAX_DEPTH = 3
# A server named in the question ("in my memory", "the git repository") says more than any one
# word of a tool's description: its name counts three times (BM25's saturation keeps it bounded).
SERVER_REPEAT = 3
# Words so common in tool descriptions that they say nothing about which tool fits.
_STOPWORD_TEXT = (
    "a about an and are as at be by can do does for from has have how i in into is it its me my of "
    "on or please should so than that the their them then there these this to was what when "
    "which will with would you your"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Words whose plural-looking form means something else: "12 times 7" is not about the time.
_NOT_PLURALS = frozenset({"times", "minus", "plus", "less", "has", "gas", "bus", "news", "series"})


def split_identifier(name: str) -> list[str]:
    """``getWeatherByCity`` and ``math.hypot_2d`` become lowercase words."""
    return [part.lower() for part in _IDENTIFIER_PART.findall(name)]


def _stem(word: str) -> str:
    """Plural and third-person endings only: enough to match 'triangles' to 'triangle'."""
    if word in _NOT_PLURALS:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith(("ches", "shes", "xes", "sses", "zzes")):
        return word[:-2]  # "switches" is "switch", "boxes" "box"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _normalised(text: str) -> str:
    text = _CONTRACTION.sub("", _ORDINAL.sub("", text))
    text = _DEGREE_SIGN.sub(lambda m: _DEGREES[m.group(1).lower()], text)
    return text.replace("%", " percent ")


def words(text: str) -> list[str]:
    """BM25 terms: identifier parts, lowercased, stemmed; stopwords and bare numbers dropped
    (the 15 in "15% of 240" says nothing about a tool whose example says 273.15 K)."""
    terms = []
    for raw in _WORD.findall(_normalised(text)):
        for part in split_identifier(raw) or [raw.lower()]:
            if part not in STOPWORDS and not part.isdigit():
                terms.append(_stem(part))
    return terms


def pairs(text: str) -> list[str]:
    """Each word joined to the next within a clause: ``fahrenheit>celsius``. Only BM25 sees
    them, in an index of their own that :class:`~app.mcp.retrieval.index.ToolIndex` weighs."""
    out = []
    for segment in _SEGMENT.split(text):
        terms = words(segment)
        out += [f"{a}>{b}" for a, b in itertools.pairwise(terms)]
    return out


def _symbols_as_words(query: str) -> str:
    query = _FORMULA.sub(" expression ", query)
    return _OPERATOR.sub(lambda m: _OPERATOR_WORDS[m.group(1)], query)


_URL = re.compile(r"\bhttps?://\S+", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?(?:/[\w.+@-]+)+/?")


# People ask in everyday verbs; tools describe themselves in the verbs of reading, writing,
# creating and deleting data. Each everyday verb also says its plain one (the word itself stays):
# "save it to groceries.txt" is a write, "forget Bob" a delete, "rename" a move. What people say
# to a memory names no tool's words either: memory servers speak of entities and knowledge graphs.
# A server's name among these words (memory, sqlite) brings its best tools to the offer (selector).
_NOT_A_SUM = r"(?!\s+(?:\w+\s+)?(?:up|together)\b)"  # "add up the prices", "add them together"
_VERBS = {
    "write": r"save|store|put|jot|record",
    "read": r"show|display|view|open|print|see",
    "create": r"make|new|start|set\s+up|remember\s+that|note",
    "delete": r"forget|erase|remove|drop|clear|wipe",
    "move": r"rename",
    "search": r"find|locate|look\s+for|look\s+up|recall|check",
    # before "add": what "stage" says ("add") is no edit of a file
    "edit": rf"add{_NOT_A_SUM}|append|change|update|replace|modify",
    "add": r"stage",
    "insert": rf"add{_NOT_A_SUM}|append",
    "memory": r"remember|recall|forget|memori[sz]e|what\s+do\s+you\s+know",
    "sqlite": r"database|sql",  # the reference database server's usual name; its tools say "SQLite"
    # what people call a folder, file tools call a directory ("Make a new folder called drafts"
    # ranked create_table, by "make" and "new", over create_directory)
    "directory": r"folders?",
    # what people ask of a thing's size and of the present; tools say "size" and "current"
    "size": r"how\s+(?:big|large|small|heavy)|bytes",
    "current": r"now|currently|at\s+the\s+moment|(?:what|which)\s+hour",
    # what people ask of a repository; git's tools say "log", "differences" and "working directory"
    "log": r"commits|history",
    "differences": r"changed|different",
    "working directory": r"since\s+(?:my|the)\s+last\s+commit|not\s+(?:yet\s+)?committed|uncommitted",
}
_VERB = {plain: re.compile(rf"\b(?:{forms})\b", re.IGNORECASE) for plain, forms in _VERBS.items()}
# What people ask of a table names no SQL: database tools say SELECT for a question of its rows
# ("how many orders", "the average price") and INSERT, UPDATE or DELETE for a change of them.
_TABLE = re.compile(r"\b(?:tables?|rows?|records?|database|columns?)\b", re.IGNORECASE)
_SQL = {
    "select query": re.compile(
        r"\b(?:how\s+many|count|total|sum|average|mean|most|least|highest|lowest|maximum|minimum)\b",
        re.IGNORECASE,
    ),
    "insert update delete query": re.compile(
        r"\b(?:add|put|insert|delete|remove|update|change|set)\b", re.IGNORECASE
    ),
}
# A file named without its folder ("notes.txt") is a file as much as a path is.
_FILE_NAME = re.compile(r"(?<![\w/.-])(?<!file )[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b(?![\w/.])")


def _verbs(query: str) -> str:
    for plain, pattern in _VERB.items():
        query = pattern.sub(rf"\g<0> {plain}", query)
    if _TABLE.search(query):
        query += "".join(f" ({sql})" for sql, pattern in _SQL.items() if pattern.search(query))
    return query


def query_sentence(query: str) -> str:
    """The question as the rankers read it: a URL says "web page", a path says "file" and its own
    name, "remember" and "forget" say "memory". The folders of "/tmp/ws/count-lines/project/notes.txt"
    are no words of the question: a lone "t" from such a path once matched git_log's
    "2024-01-15T14:30:25" and pushed it first."""
    query = _URL.sub(" web page url ", query)
    query = _PATH.sub(lambda m: f" file {m.group(0).rstrip('/').rsplit('/', 1)[-1]} ", query)
    return _verbs(_FILE_NAME.sub(lambda m: f" file {m.group(0)} ", query))


def query_words(query: str) -> list[str]:
    """A question's BM25 words, arithmetic symbols read as words first ("8 x 12": times)."""
    return words(_symbols_as_words(query_sentence(query)))


# A request's verb says what is to be done ("Create a file ... listing eggs, one per line"): where
# the nouns matched the reading tools' texts (file, line), write_file ranked 7th.
LEAD_WEIGHT = 2.0
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
# Words that open a sentence and are no verb ("each of 6 friends pays an equal part of 90")
_NO_VERBS = frozenset(
    {
        *("each", "every", "all", "both", "some", "any", "many", "much", "most", "few", "several"),
        *("another", "other", "such", "if", "when", "while", "after", "before", "since", "because"),
        *("once", "here", "there", "we", "they", "he", "she", "you", "i", "it"),
    }
)
_LEAD = re.compile(r"\s*(?:(?:please|now|then|also|and|so)\b[\s,]*)*([A-Za-z]+)", re.IGNORECASE)


def lead_weights(query: str) -> dict[str, float]:
    """The BM25 weight of the first word of each sentence that is no question (an imperative's
    verb, and the plain verb it says, :data:`_VERBS`): ``LEAD_WEIGHT``, where others have 1."""
    weights: dict[str, float] = {}
    for sentence in _SENTENCE.split(query.strip()):
        lead = _LEAD.match(sentence)
        if lead is None or sentence.rstrip().endswith("?") or lead.group(1).lower() in _NO_VERBS:
            continue
        # the plain verbs a word says, save where it opens a sum ("add them up")
        said = lead.group(1) if re.match(_NOT_A_SUM, sentence[lead.end() :]) else ""
        for term in words(_verbs(said) if said else lead.group(1)):
            weights[term] = LEAD_WEIGHT
    return weights


def query_pairs(query: str) -> list[str]:
    return pairs(_symbols_as_words(query_sentence(query)))


def parameters(schema: Mapping[str, Any], depth: int = 0) -> Iterator[tuple[str, str]]:
    """(name, description) of each property, walking into nested objects and arrays."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or depth >= _MAX_DEPTH:
        return
    for name, spec in properties.items():
        if not isinstance(spec, Mapping):
            continue
        description = spec.get("description")
        yield str(name), description if isinstance(description, str) else ""
        yield from parameters(spec, depth + 1)
        items = spec.get("items")
        if isinstance(items, Mapping):
            yield from parameters(items, depth + 1)


def document(tool: ToolInfo) -> str:
    """One plain-text description of the tool, for both rankers."""
    lines = [" ".join(split_identifier(tool.name)) + ":", tool.description.strip()]
    for name, description in parameters(tool.input_schema):
        label = " ".join(split_identifier(name))
        lines.append(f"{label}: {description.strip()}" if description else label)
    return "\n".join(line for line in lines if line)


def document_words(tool: ToolInfo) -> list[str]:
    # The name counts twice: it is the most specific thing a tool says about itself. The server's
    # name, as the user configured it, is how they speak of it ("save it in my memory", "in the
    # git repository") where its tools say "knowledge graph" and "entities": a word to match, but
    # kept out of the sentence the encoder reads, where "maps" pulled "3 miles in km" to directions.
    return words(tool.name) + words(document(tool)) + words(tool.server) * SERVER_REPEAT
