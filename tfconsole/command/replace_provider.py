"""`state replace-provider FROM TO`: move every resource that FROM manages in the state to TO.

Used when a provider changes its source address (a fork, a registry move, a legacy `-/name`
provider): the resources stay, only the provider recorded for each changes. Like Terraform's,
the command lists what it will change and asks (unless -auto-approve) while holding the state
lock, and writes the state once.
"""
from __future__ import annotations

import re
import sys
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.providers.plugin.provider_addr import AddrError, ProviderAddr, parse_source

# the provider source inside a provider configuration address: module.m.provider["SOURCE"].alias
_SOURCE = re.compile(r'provider\["([^"]*)"\]')


def _parse(which: str, text: str, diags: Diagnostics) -> ProviderAddr | None:
    try:
        return parse_source(text)
    except AddrError as exc:
        diags.error(f'Invalid "{which}" provider "{text}"', f"{exc.summary}: {exc.detail}")
        return None


def _source(config_addr: str) -> str | None:
    m = _SOURCE.search(config_addr)
    return m.group(1) if m else None


def run(cli: Any, a: Any) -> int:
    from tfconsole import operations
    from tfconsole.operations.rules import Edit

    diags = Diagnostics()
    old, new = _parse("from", a.pos[0], diags), _parse("to", a.pos[1], diags)
    if old is None or new is None:
        cli.diags(diags, legacy_ui=True)
        return 1

    unanswered = False

    def edit(state: Any) -> Edit:
        nonlocal unanswered
        e = Edit()
        matching = [rs for rs in state.resources.values() if _source(rs.provider) == str(old)]
        if not matching:
            e.report.append("No matching resources found.")
            return e
        cli.out(f"Terraform will perform the following actions:\n\n  ~ Updating provider:\n    - {old}\n"
                f"    + {new}\n\nChanging {len(matching)} resources:\n")
        for rs in matching:
            cli.out(f"  {rs.addr}")
        if not a.bool("auto-approve"):
            answer = _ask(cli)
            unanswered = answer is None
            if answer != "yes":
                if answer is not None:
                    cli.out("Cancelled replacing providers.")
                return e
        for rs in matching:
            rs.provider = _SOURCE.sub(f'provider["{new}"]', rs.provider, count=1)
        e.changed = True
        e.report.append(f"\nSuccessfully replaced provider for {len(matching)} resources.")
        return e

    # the lock's Operation names the command, as Terraform's does ("state-replace-provider")
    rc = cli._edited(operations.edit_state(cli.request(a), edit, "state-replace-provider", needs_state=True))
    return 1 if unanswered else rc


def _ask(cli: Any) -> str | None:
    """The answer to the approval question; None when standard input has none to give."""
    cli.out("\nDo you want to make these changes?\nOnly 'yes' will be accepted to continue.\n")
    cli.stdout.write("Enter a value: ")
    cli.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        cli.stderr.write("Error asking for approval: EOF\n")
        return None
    return line.strip()
