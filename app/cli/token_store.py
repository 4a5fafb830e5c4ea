"""The encrypted token file from the command line: the opt-in, its passphrase for this run, and
the opt-out.

``calculon auth login SERVER --token-store file`` creates the file (:mod:`app.token_file`),
asking for a new passphrase twice unless ``CALCULON_TOKEN_PASSPHRASE`` gives it. Once the file
exists, a command that connects to servers asks for the passphrase at the terminal when the
variable is unset; without a terminal it says which variable to set. Nothing is stored.
``calculon auth logout --token-store file`` says which sign-ins the file holds (by server name,
where its passphrase opens it), then removes it: later sign-ins go to the system keyring.
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import Mapping

from app import secrets, token_file
from app.cli.exits import EXIT_FAILED, EXIT_OK
from app.cli.visible import show


class Refused(RuntimeError):
    """The opt-in cannot go ahead; the message says why."""


def unlock() -> None:
    """Ask for the token file's passphrase, once, where the file exists and nothing gives it."""
    if token_file.opted_in() and token_file.passphrase() is None and _terminal():
        token_file.remember_passphrase(getpass.getpass(f"Passphrase for {token_file.path()}: "))


def opt_in() -> str:
    """Create the token file (or open the existing one); returns what to tell the user."""
    where = token_file.path()
    if token_file.passphrase() is None:
        if not _terminal():
            raise Refused(
                f"the encrypted token file needs a passphrase: set {token_file.PASSPHRASE_ENV}, "
                "or run this at a terminal"
            )
        chosen = getpass.getpass(f"New passphrase for {where}: ")
        if not chosen or chosen != getpass.getpass("The same passphrase again: "):
            raise Refused("the passphrases were empty or did not match; nothing was written")
        token_file.remember_passphrase(chosen)
    existed = where.is_file()
    try:
        token_file.TokenFile(where).create()
    except token_file.TokenFileError as exc:
        raise Refused(str(exc)) from exc
    return f"sign-in tokens are kept in {where}" + ("" if existed else " (new, encrypted)")


def opt_out(remote: Mapping[str, str]) -> int:
    """Remove the token file, having said what goes with it; ``remote`` maps server names to URLs."""
    where = token_file.path()
    if not where.is_file():
        show(f"calculon: there is no token file {where}: sign-ins are kept in the system keyring", sys.stderr)
        return EXIT_FAILED
    show(f"calculon: removing {where}: {_held(remote)}", sys.stderr)
    try:
        where.unlink()
    except OSError as exc:
        show(f"calculon: could not remove {where}: {exc.strerror}", sys.stderr)
        return EXIT_FAILED
    after = "" if secrets.keyring_available() else " (there is none here yet)"
    print(f"removed {where}; sign-ins are kept in the system keyring{after} from now on")
    return EXIT_OK


def _held(remote: Mapping[str, str]) -> str:
    """What the file holds, by server name; what it holds for no server in the file, by URL."""
    try:
        users = token_file.TokenFile(token_file.path()).read()
    except token_file.TokenFileError as exc:
        return f"what it holds cannot be read ({exc}), and goes with it unread"
    urls = {_server_url(user) for user in users} - {None}
    names = sorted(name for name, url in remote.items() if url in urls)
    others = sorted(str(url) for url in urls - set(remote.values()))
    if not names and not others:
        return "it holds no sign-in"
    held = ", ".join([*names, *(f"{url} (no longer in the servers file)" for url in others)])
    return f"the sign-ins to {held} go with it (their tokens and client registrations)"


def _server_url(user: str) -> str | None:
    """The server URL of an entry ``oauth:URL:PART`` or ``oauth:URL:issuer:ISSUER:PART``."""
    if not user.startswith("oauth:") or ":" not in user[len("oauth:") :]:
        return None
    url = user[len("oauth:") : user.rindex(":")]
    return url.split(":issuer:", 1)[0]


def _terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()
