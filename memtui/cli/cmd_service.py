"""Commands for the local memory service: ``memtui serve`` and ``memtui call``."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from memtui.cli.common import Command, arg, number_type
from memtui.cli.context import CliContext
from memtui.errors import InvalidInput
from memtui.service.client import CLIENT_TIMEOUT_S

_seconds = number_type(float, "a number of seconds", lambda n: 0 < n < float("inf"),
                       "must be a positive number of seconds")


def serve(ctx: CliContext, args: argparse.Namespace) -> int:
    """``serve [--socket PATH] [--worker] [--interval S]``: run until SIGTERM/SIGINT."""
    from memtui.engine.agent_setup import codex_home_for_worker
    from memtui.service.server import MemoryService

    if not logging.getLogger().handlers:  # the service logs to stderr
        logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                            format="memtui serve: %(message)s")
    codex_home = codex_home_for_worker(args.codex_home) if args.worker else None
    return MemoryService(ctx.db_target, ctx.user, args.socket, worker=args.worker,
                         interval_s=args.interval, create_folder=not ctx.db_named,
                         codex_home=codex_home).run()


def call(ctx: CliContext, args: argparse.Namespace) -> int:
    """``call METHOD [JSON] [--socket PATH]``: one request; prints the response object. Exit 0
    when ok, else 3 not_found, 4 permission_denied, 5 invalid_params, 1 any other error."""
    from memtui.service.client import call as call_service
    from memtui.service.protocol import exit_code_for

    try:
        params = json.loads(args.params)
    except (ValueError, RecursionError):
        raise InvalidInput("the params are not valid JSON (give one JSON object)") from None
    if not isinstance(params, dict):
        raise InvalidInput("the params must be a JSON object")
    response = call_service(args.method, params, args.socket, timeout=args.timeout)
    ctx.emit_json(response)
    code = exit_code_for(response)
    if code:
        error = response.get("error") or {}
        message = str(error.get("message", "")).replace("\n", " ")
        ctx.stderr.write(f"memtui: error: {error.get('code')}: {message}\n")
    return code


TOP_LEVEL = (
    Command("serve", "run the local memory service on a unix socket (JSON Lines; "
            "docs/service.md)", serve, (
                arg("--socket", metavar="PATH", default=None,
                    help="socket path (else $MEMTUI_SOCKET, else the user's runtime folder)"),
                arg("--worker", action="store_true",
                    help="also run the background extraction worker"),
                arg("--interval", metavar="S", type=_seconds, default=None,
                    help="seconds between worker rounds (with --worker)"),
                arg("--codex-home", metavar="PATH", default=None,
                    help="with --worker: import this Codex home's new session rollouts every "
                         "round (else $CODEX_HOME, else ~/.codex once `memtui hooks install "
                         "codex` added memtui to it)"))),
    Command("call", "call one method of the running service; prints its response", call, (
        arg("method", metavar="METHOD", help="e.g. health, memory.recall"),
        arg("params", metavar="JSON", nargs="?", default="{}",
            help="the params object (default {})"),
        arg("--socket", metavar="PATH", default=None,
            help="socket path (else $MEMTUI_SOCKET, else the default)"),
        arg("--timeout", metavar="S", type=_seconds, default=CLIENT_TIMEOUT_S,
            help=f"seconds to wait for the answer (default {CLIENT_TIMEOUT_S:g})"))),
)
