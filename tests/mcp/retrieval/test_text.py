"""BM25's words: "times" is not "time", bare numbers are no terms, "%" reads as percent; pairs keep order."""

from __future__ import annotations

from app.core.tools import ToolInfo
from app.mcp.retrieval.index import ToolIndex
from app.mcp.retrieval.text import lead_weights, pairs, query_words, words


def test_times_is_not_stemmed_to_time():
    assert words("What is 12 times 7?") == ["times"]
    assert words("What time is it?") == ["time"]


def test_numbers_are_not_terms_and_a_percent_sign_is_the_word_percent():
    assert words("What is 15% of 240?") == ["percent"]
    assert words("0 °C = 273.15 K") == ["celsius", "k"]


def test_a_degree_sign_names_the_scale_and_a_contraction_or_ordinal_adds_no_word():
    assert words("72 °F in °C") == ["fahrenheit", "celsius"]
    assert words("what's the 12th power") == ["power"]
    assert words("25C in F") == ["c", "f"]  # without the sign a letter is only a letter


def test_arithmetic_symbols_in_a_question_read_as_words():
    assert query_words("what is 8 x 12") == query_words("8 × 12") == ["times"]
    assert query_words("2^16") == ["power"]
    assert query_words("work out 12 * 4 + 7 * 3") == ["work", "out", "expression"]
    assert words("8 x 12") == ["x"]  # tool texts keep their symbols as written


def test_pairs_keep_word_order_within_a_clause():
    assert pairs("fahrenheit to celsius") == ["fahrenheit>celsius"]
    assert pairs("celsius to fahrenheit") == ["celsius>fahrenheit"]
    # No pair spans the bracket ("kelvin>celsius"); the dot inside 273.15 splits nothing.
    assert pairs("Convert kelvins (0 °C = 273.15 K).") == ["convert>kelvin", "celsius>k"]


def test_a_path_in_a_question_reads_as_a_file_and_its_name_and_a_url_as_a_web_page() -> None:

    words = query_words("Add up the prices in /tmp/ws-7/t/project/prices.csv. What is the total?")
    assert "file" in words and "price" in words and "csv" in words
    assert not {"tmp", "ws", "t", "project"} & set(words)  # folders are no words of the question
    assert {"web", "page", "url"} <= set(query_words("What does https://example.org/a/t say?"))
    assert "file" not in query_words("What is 3/4 of 1/2 cup?")


def test_the_first_word_of_a_request_weighs_more_and_a_question_has_none() -> None:
    assert lead_weights("Please save this list to groceries.txt") == {"save": 2.0, "write": 2.0}
    assert lead_weights("How many lines does notes.txt have?") == {}
    assert lead_weights("How many lines are there? Then add them up.") == {"add": 2.0}  # a sum: no edit
    assert lead_weights("Add an item to todo.md") == {"add": 2.0, "edit": 2.0, "insert": 2.0}


def test_a_request_s_verb_outranks_nouns_a_reading_tool_shares() -> None:
    def tool(name: str, description: str) -> ToolInfo:
        return ToolInfo("files", name, name, description, {"type": "object", "properties": {}})

    read = tool(
        "read_text_file", "Read the complete contents of a file as text, line by line; head or tail lines."
    )
    write = tool("write_file", "Create a new file or completely overwrite an existing file with new content.")
    index = ToolIndex("k", [read, write], None)

    scores = index.scores("Create a file shopping.txt listing eggs, flour and sugar, one per line.", None)
    assert scores.hybrid[index.rows["write_file"]] > scores.hybrid[index.rows["read_text_file"]]


def test_a_folder_is_a_directory_as_file_tools_name_it() -> None:
    assert "directory" in query_words("Make a new folder called drafts")
    assert "directory" in query_words("Which files are in my projects folders?")
    assert "directory" not in query_words("Make a new table called orders")


def test_a_question_of_a_table_s_rows_says_select_and_a_change_of_them_says_insert() -> None:
    asked = query_words("How many orders are in the orders table?")
    assert "select" in asked and "insert" not in asked
    changed = query_words("Add a customer named Dana to the customers table")
    assert {"insert", "update", "delete"} <= set(changed) and "select" not in changed
    # no table, row or database named: a story's "how many" and "add" say nothing of SQL
    assert not {"select", "update", "query"} & set(query_words("How many apples are left if I add 3 to 5?"))


def test_what_people_ask_of_a_repository_says_log_differences_and_working_directory() -> None:
    assert "log" in query_words("Show me the last five commits")
    assert "difference" in query_words("What's different between main and dev?")
    since = query_words("What have I changed in the repo since the last commit?")
    assert {"difference", "working", "directory"} <= set(since)
    assert "log" not in query_words("Commit my staged changes")
