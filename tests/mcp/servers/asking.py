"""A server on the Python SDK's MCPServer that asks its client: a form, a link, a completion,
the roots. On a 2026-07-28 connection these ride input-required rounds; the SDK picks the path.
Also a destructive tool and a read-only one, for approvals."""

from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp_types import ListRootsResult, SamplingMessage, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

app = MCPServer("asking")


class Booking(BaseModel):
    name: str = Field(title="Your name")
    seats: int = Field(default=2, ge=1, le=8, title="Seats")
    email: str = Field(default="", json_schema_extra={"format": "email"})


def ask_booking() -> Elicit[Booking]:
    return Elicit("Book a table: who and how many?", Booking)


@app.tool()
def book(booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    """Ask the user for a booking, and say what came back."""
    if isinstance(booking, AcceptedElicitation):
        return f"booked {booking.data.seats} seats for {booking.data.name}"
    return f"no booking: {booking.action}"


class Seating(BaseModel):
    name: str = Field(title="Your name")
    # Required here, so only a client that fills in the form's default can leave it out.
    area: str = Field(title="Area", json_schema_extra={"default": "window"})


def ask_seating() -> Elicit[Seating]:
    return Elicit("Where would you like to sit?", Seating)


@app.tool()
def seat(seating: Annotated[ElicitationResult[Seating], Resolve(ask_seating)]) -> str:
    """Ask where to seat the user; the form's area has a default."""
    if isinstance(seating, AcceptedElicitation):
        return f"seated {seating.data.name} by the {seating.data.area}"
    return f"not seated: {seating.action}"


def ask_model(topic: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=f"One word about {topic}"))
    return Sample([message], max_tokens=12, system_prompt="Answer in one word.")


@app.tool()
def muse(topic: str, completion: Annotated[object, Resolve(ask_model)]) -> str:
    """Ask the host's model about a topic."""
    content = getattr(completion, "content", None)
    return f"the model said: {getattr(content, 'text', content)}"


def ask_roots() -> ListRoots:
    return ListRoots()


@app.tool()
def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> list[str]:
    """The client's roots."""
    return [str(root.uri) for root in listed.roots]


@app.tool(annotations=ToolAnnotations(destructive_hint=True, read_only_hint=False))
def wipe(what: str) -> str:
    """Pretend to delete something."""
    return f"wiped {what}"


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def peek(what: str) -> str:
    """Look at something."""
    return f"saw {what}"


if __name__ == "__main__":
    app.run("stdio")
