"""A server whose results are more than text: structured content valid and not against its output
schema, an image, an embedded resource, a resource link, and content meant for the user alone;
also a resource, a resource template and a prompt."""

from mcp.server.mcpserver import MCPServer
from mcp_types import (
    Annotations,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import BaseModel

app = MCPServer("rich")
# a 2x1 PNG
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAADklEQVR4nGP4z8AAQv8BD/kD/YURmXYAAAAASUVORK5CYII="


class Weather(BaseModel):
    temperature: float
    conditions: str


@app.tool()
def weather(city: str) -> Weather:
    """Structured weather that matches the output schema."""
    return Weather(temperature=21.5, conditions=f"sunny in {city}")


@app.tool()
def broken_weather(city: str) -> Weather:
    """Claims the Weather schema but returns a temperature that is not a number."""
    return Weather.model_construct(temperature="warm", conditions=city)  # skips pydantic's check


@app.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def picture() -> CallToolResult:
    """An image, an embedded text resource, a link, and a line for the user only."""
    private = Annotations(audience=["user"])
    return CallToolResult(
        content=[
            TextContent(type="text", text="for everyone"),
            TextContent(type="text", text="for your eyes only", annotations=private),
            ImageContent(type="image", data=PIXEL, mime_type="image/png"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="note://1", mime_type="text/plain", text="embedded note"),
            ),
            ResourceLink(type="resource_link", name="readme", uri="note://readme", mime_type="text/plain"),
        ]
    )


@app.resource("note://readme", mime_type="text/plain")
def readme() -> str:
    """The readme the picture links to."""
    return "read me first"


@app.resource("note://{number}", mime_type="text/plain")
def numbered(number: str) -> str:
    """A note by number."""
    return f"note number {number}"


@app.prompt()
def greet(name: str) -> str:
    """Ask the model to greet someone."""
    return f"Please greet {name} warmly."


if __name__ == "__main__":
    app.run("stdio")
