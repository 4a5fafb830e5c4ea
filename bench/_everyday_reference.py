"""Everyday phrasings over the official reference servers and the bundled ones, each labelled
with the tools that fit it (any of them ranked first counts).

Written as people ask an MCP host to do things with their files, notes, repositories and
databases, before the ranking was looked at; a miss is mended in the retriever, never by
rewording the question. The tools are the reference servers' own lists, snapshotted by
``python -m bench.reference_tools`` into ``tests/mcp/retrieval/data/reference_tools.json``.
"""

from __future__ import annotations

from bench._everyday import Phrasing


def _p(text: str, *tools: str) -> Phrasing:
    return Phrasing(text, tools[0], frozenset(tools[1:]))


CLOCK = ("get_current_time", "get_time", "now")
READ = ("read_text_file", "read_file", "read_multiple_files")
LIST = ("list_directory", "list_directory_with_sizes", "directory_tree")

REFERENCE: tuple[Phrasing, ...] = (
    _p("What hour is it in Tokyo right now?", *CLOCK),
    _p("what's the time in new york", *CLOCK),
    _p("If it's 9:30 in New York, what time is that in London?", "convert_time"),
    _p("Show me what's in notes.txt", *READ),
    _p("Which files are in my projects folder?", *LIST),
    _p("Save this shopping list to groceries.txt: eggs, milk, bread", "write_file"),
    _p("Make a new folder called drafts", "create_directory"),
    _p("Rename draft.md to final.md", "move_file"),
    _p("Find every file whose name mentions invoice", "search_files"),
    _p("How big is report.pdf and when was it last changed?", "get_file_info"),
    _p("Remember that my dentist appointment is on Friday", "create_entities", "add_observations"),
    _p("What do you remember about Alice?", "search_nodes", "open_nodes", "read_graph"),
    _p("Forget everything you know about Bob", "delete_entities"),
    _p(
        "What have I changed in the repo since the last commit?",
        "git_diff_unstaged",
        "git_status",
        "git_diff",
    ),
    _p("Commit my staged changes with the message 'fix typo'", "git_commit"),
    _p("Show me the last five commits", "git_log"),
    _p("Start a new branch called feature-login", "git_create_branch"),
    _p("Stage config.yaml for the next commit", "git_add"),
    _p("Switch to the main branch", "git_checkout"),
    _p("Which tables are in the database?", "list_tables"),
    _p("How many orders are in the orders table?", "read_query"),
    _p("Add a customer named Dana to the customers table", "write_query"),
    _p("What columns does the products table have?", "describe_table"),
    _p("Download https://example.com/news and summarise it", "fetch"),
    _p("Convert 5 miles to kilometres", "convert"),
    _p("What is 15% of 240?", "evaluate", "multiply"),
)

# Written after the misses above were read and before the retriever was changed for them, to
# see whether a mend reaches questions it was not made on; never reworded after a ranking.
REFERENCE_HELD_OUT: tuple[Phrasing, ...] = (
    _p("Which commits did I make this week?", "git_log"),
    _p("Show the commit history of this repository", "git_log"),
    _p("What did I change in notes.txt since my last commit?", "git_diff_unstaged", "git_diff"),
    _p("What's different between main and the feature branch?", "git_diff"),
    _p("How many rows does the products table have?", "read_query"),
    _p("Count the customers in the database", "read_query"),
    _p("What's the average price in the products table?", "read_query"),
    _p("Insert a new product called lamp costing 30 into the products table", "write_query"),
    _p("Put a row for Eve into the customers table", "write_query"),
    _p("Delete the order with id 3 from the orders table", "write_query"),
    _p("What time is it in London at the moment?", *CLOCK),
    _p("Is it morning in Sydney right now?", *CLOCK),
    _p("Which hour is it now in Paris?", *CLOCK),
    _p("When it's 14:00 in Berlin, what time is it in New York?", "convert_time"),
    _p("Which tables are in my database?", "list_tables"),
    _p("What columns does the orders table have?", "describe_table"),
    _p("Stage notes.txt for the next commit", "git_add"),
    _p("What is not committed yet on this branch?", "git_status", "git_diff_unstaged"),
)
