"""``calculon auth login|status|logout``: OAuth sign-in to remote servers from a shell.

``login`` does what the window's Sign in does (:meth:`Supervisor.sign_in`, app.mcp.oauth): the
consent page opens in the browser, or with ``--no-browser`` its address is printed on stdout
for the user (or a script) to open, and the code comes back on the loopback redirect. Tokens
go to the system keyring; where there is none the command says so, how to get one, and that
``--token-store file`` keeps them in an encrypted file instead (:mod:`app.cli.token_store`);
``logout --token-store file`` removes that file again.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

from app import secrets
from app.cli import running
from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE
from app.cli.visible import show
from app.mcp.config import ServerEntry, load_config

NO_KEYRING = (
    "calculon: no system keyring is available to keep the sign-in's tokens: on Linux, install and "
    "unlock a Secret Service (GNOME Keyring or KWallet), then run `calculon auth login {name}` again, "
    "or keep them in a file encrypted with a passphrase: `calculon auth login {name} --token-store file`."
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    auth = commands.add_parser("auth", help="sign in to remote servers that use OAuth")
    actions = auth.add_subparsers(dest="auth_command", metavar="ACTION", required=True)
    login = actions.add_parser("login", help="sign in to SERVER in the browser")
    login.add_argument("server", metavar="SERVER")
    login.add_argument(
        "--no-browser", action="store_true", help="print the sign-in address instead of opening a browser"
    )
    login.add_argument(
        "--token-store",
        choices=("file",),
        help="keep sign-in tokens in a file in the config folder, encrypted with a passphrase "
        "(CALCULON_TOKEN_PASSPHRASE, or asked), instead of the system keyring",
    )
    status = actions.add_parser("status", help="which remote servers are signed in")
    status.add_argument("server", metavar="SERVER", nargs="?")
    logout = actions.add_parser(
        "logout", help="forget SERVER's sign-in, or with --token-store file stop using the encrypted file"
    )
    logout.add_argument("server", metavar="SERVER", nargs="?")
    logout.add_argument(
        "--token-store",
        choices=("file",),
        help="opt out of the encrypted token file: say which sign-ins it holds, then remove it "
        "(sign-ins go to the system keyring again)",
    )


def command(args: argparse.Namespace) -> int:
    servers = load_config(args.config).servers
    names = [args.server] if args.server else [n for n, e in servers.items() if e.remote]
    for name in names:
        if name not in servers or not servers[name].remote:
            show(f"calculon: no remote server named {name} in the servers file", sys.stderr)
            return EXIT_USAGE
    if args.auth_command == "status":
        for name in names:
            print(f"{name}: {_state(servers[name])}")
        return EXIT_OK
    if args.auth_command == "logout" and (args.token_store == "file") == bool(args.server):
        show("calculon: name a SERVER to sign out of, or --token-store file (no SERVER) to remove the "
             "encrypted token file", sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if args.auth_command == "logout" and args.token_store == "file":
        from app.cli.token_store import opt_out

        return opt_out({name: entry.url for name, entry in servers.items() if entry.remote})
    if getattr(args, "token_store", None) == "file":
        from app.cli.token_store import Refused, opt_in

        try:
            show(f"calculon: {opt_in()}", sys.stderr)
        except Refused as exc:
            show(f"calculon: {exc}", sys.stderr)
            return EXIT_FAILED
    if not secrets.tokens_storable():
        show(NO_KEYRING.format(name=args.server), sys.stderr)
        return EXIT_UNAVAILABLE
    if args.auth_command == "logout":
        from app.mcp import oauth

        try:
            oauth.sign_out(servers[args.server].url)
        except secrets.SecretStoreError as exc:
            show(f"calculon: {exc}", sys.stderr)
            return EXIT_FAILED
        print(f"{args.server}: signed out")
        return EXIT_OK
    return running.run(_login(args, servers[args.server]))


def _state(entry: ServerEntry) -> str:
    from app.mcp import client_credentials, oauth

    if any(header.lower() == "authorization" for header in entry.headers):
        return "sends its own Authorization header (no sign-in)"
    if client_credentials.wanted(client if isinstance(client := entry.extra.get("oauth"), dict) else None):
        return "gets its tokens with the credentials in its entry (no sign-in)"
    if not secrets.tokens_storable():
        return "not signed in (no system keyring to keep a sign-in)"
    if not oauth.signed_in(entry.url):
        return "not signed in"
    expiry = oauth.token_expiry(entry.url)
    if expiry is None:
        return "signed in"
    left = expiry - time.time()
    if left <= 0:
        return "signed in, token expired (refreshed when next used)"
    return f"signed in, token valid {left / 60:.0f} more min"


async def _login(args: argparse.Namespace, entry: ServerEntry) -> int:
    from app.mcp.handlers import ClientHandlers, server_handlers, system_browser
    from app.mcp.oauth import CONSENT_TIMEOUT_S

    async def browser(url: str) -> None:
        show(f"calculon: to sign in to {entry.name}, open this address and allow access:", sys.stderr)
        print(url, flush=True)
        if not args.no_browser:
            await system_browser(url)

    def handlers(server: str, sink: object) -> ClientHandlers:
        return dataclasses.replace(server_handlers(server, sink), open_browser=browser)  # type: ignore[arg-type]

    async with running.running_servers(args.config, only=entry.name, handlers=handlers) as supervisor:
        (before,) = supervisor.states()
        if before.state == "ready":
            print(f"{entry.name}: already signed in (`calculon auth logout {entry.name}` to sign in afresh)")
            return EXIT_OK
        status = await supervisor.sign_in(entry.name, timeout=CONSENT_TIMEOUT_S + 30)
    if status.state != "ready":
        show(f"calculon: signing in to {entry.name} failed: {status.last_error}", sys.stderr)
        return EXIT_FAILED
    print(f"{entry.name}: signed in")
    return EXIT_OK
