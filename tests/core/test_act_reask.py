"""Answers that say a task was done, or will be, or give it up, read without running a turn:
what ``act_reask`` tells the model, and whether its next step must call."""

from __future__ import annotations

from app.core.acting import ACT_REASK, act_reask, empty_result
from app.core.messages import ToolSpec
from app.core.records import CallRecord

READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def test_an_answer_with_a_blank_for_its_result_is_a_plan() -> None:
    asked = "What are all the orders in the shop database worth together?"
    tables = CallRecord("sqlite", "list_tables", {}, "[{'name': 'orders'}]", False, 1.0)
    blank = "The total value of all orders in the shop database is $[sum of all order values]$."
    assert act_reask(blank, asked, [READ], [tables]) == (ACT_REASK, False)
    linked = "The orders are worth 123.50 in all; see [the shop report](http://127.0.0.1/report)."
    assert act_reask(linked, asked, [READ], [tables]) is None


def test_a_give_up_after_a_call_that_found_nothing_is_asked_to_try_again() -> None:
    search = ToolSpec("search_nodes", "", {"type": "object"})
    graph = ToolSpec("read_graph", "", {"type": "object"})
    asked = "On what day of March is Alice's birthday? Check my memory."
    found = CallRecord(
        "memory",
        "search_nodes",
        {"query": "Alice's birthday in March"},
        '{\n "entities": [],\n "relations": []\n}',
        False,
        1,
    )
    told = act_reask("I'm sorry, but I can't assist with that.", asked, [search, graph], [found])
    assert told is not None and told[1] is True
    assert told[0].startswith(
        'The last tool call found or changed nothing: search_nodes returned { "entities"'
    )
    assert "(read_graph can show what exists)" in told[0]
    assert act_reask("Alice has no birthday in my memory.", asked, [search, graph], [found]) is None
    assert empty_result("[]") and empty_result("{}") and not empty_result('{"entities": [{"name": "Alice"}]}')
    assert not empty_result("0 rows") and not empty_result("[1]")


def test_a_create_that_made_nothing_is_asked_again_naming_the_tools_that_change_what_exists() -> None:
    memory = [
        ToolSpec(name, "", {"type": "object"}, server="memory")
        for name in ("create_entities", "add_observations", "search_nodes", "delete_entities")
    ]
    made = CallRecord("memory", "create_entities", {"entities": [{"name": "Carol"}]}, "[]", False, 1.0)
    told = act_reask(
        "I'm sorry, but I can't assist with that.", "Note that Carol works at Acme.", memory, [made]
    )
    assert told is not None and told[1]
    assert "may exist already: add_observations can change what exists" in told[0]
    searched = CallRecord("memory", "search_nodes", {"query": "Carol"}, "[]", False, 1.0)
    told = act_reask("I'm sorry, I can't.", "What does Carol do?", memory, [searched])
    assert told is not None and "may exist already" not in told[0]  # a search makes nothing


def test_a_promise_to_execute_the_query_before_any_call_is_a_plan() -> None:
    asked = "How many products are in the shop database?"
    promise = "To determine the number of products, I will execute a SELECT query on the SQLite database."
    told = act_reask(promise, asked, [READ], [])
    assert told is not None and told[0] == ACT_REASK


def test_a_deed_claimed_done_before_any_call_is_asked_for_with_a_call() -> None:
    memory = [ToolSpec("delete_entities", "", {"type": "object"}, server="memory")]
    asked = "Forget everything you know about Bob."
    told = act_reask("I have deleted all information about Bob from my knowledge base.", asked, memory, [])
    assert told == (
        f"No tool call was made, so nothing has been done yet. Do what I asked with a tool call now: {asked}",
        True,
    )
    gone = CallRecord("memory", "delete_entities", {"entityNames": ["Bob"]}, "Entities deleted", False, 1.0)
    assert act_reask("I have deleted Bob.", asked, memory, [gone]) is None  # done by the call
    assert act_reask("It has been created in March.", "When was the repository created?", memory, []) is None
    story = "Sam saved 40 dollars and then 15 more. How much was saved?"
    assert act_reask("In total 55 dollars were saved.", story, memory, []) is None  # a story's past


def test_a_second_time_zone_no_call_used_is_the_next_call() -> None:
    clock = ToolSpec(
        "get_current_time", "", {"type": "object", "properties": {"timezone": {"type": "string"}}}
    )
    asked = "How many hours ahead of London is Tokyo right now?"
    tokyo = CallRecord(
        "time", "get_current_time", {"timezone": "Asia/Tokyo"}, '{"datetime": "20:53"}', False, 1.0
    )
    plan = "I'll use the get_current_time function and convert the result to hours ahead of London."

    told, must_call = act_reask(plan, asked, [clock], [tokyo]) or ("", False)
    assert told.startswith("Your request also names Europe/London, and no tool call has used it yet.")
    assert must_call
    london = CallRecord(
        "time", "get_current_time", {"timezone": "Europe/London"}, '{"datetime": "11:53"}', False, 1.0
    )
    assert act_reask("Tokyo is 9 hours ahead of London.", asked, [clock], [tokyo, london]) is None
