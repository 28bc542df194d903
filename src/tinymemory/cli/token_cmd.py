"""`tinymemory token issue`: a bearer token for the memory service.

Signed with the service's HS256 secret (a JWT), or, with --token-file, an opaque token whose SHA-256 is
appended to the token file. Without --user the token is an API key for the workspace.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from tinymemory.api import InvalidRequest
from tinymemory.cli.common import add_hs256_flags

_TTL = re.compile(r"(\d{1,6})([smhd])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_ttl(text: str) -> timedelta:
    match = _TTL.fullmatch(text.strip())
    if not match or int(match.group(1)) == 0:
        raise InvalidRequest(f"token issue: `--ttl` must look like 30d, 12h, 45m or 90s, got {text[:40]!r}")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser("token", help="issue bearer tokens for `tinymemory serve`")
    sub = parser.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    issue = sub.add_parser(
        "issue",
        help="print a new token (a JWT signed with the service's secret, or an opaque token-file entry)",
    )
    issue.add_argument("--workspace", required=True, help="the workspace the token belongs to")
    issue.add_argument("--user", help="the verified user; leave out for an API key")
    issue.add_argument("--agent", help="the agent the user talks to (their tier for it, its notes)")
    issue.add_argument("--admin", action="store_true", help="may ingest and manage the agent registry")
    issue.add_argument("--ttl", default="30d", help="lifetime, e.g. 30d, 12h (default: 30d)")
    add_hs256_flags(issue)
    issue.add_argument(
        "--token-file",
        help="instead of a JWT: append an opaque token's hash to this YAML/JSON token file",
    )
    issue.add_argument("--label", help="with --token-file: a note kept beside the entry")
    issue.set_defaults(func=run_issue)


def run_issue(args: argparse.Namespace) -> int:
    from tinymemory.cli.serve_cmd import require_service_extra

    # Tokens are the service's (signed with PyJWT, its extra's package); a core install may lack it.
    require_service_extra("token issue", modules=("jwt",))
    from tinymemory.service.settings import secret_from
    from tinymemory.service.tokens import issue_jwt, issue_opaque

    ttl = parse_ttl(args.ttl)
    if args.token_file:
        token = issue_opaque(
            Path(args.token_file),
            args.workspace,
            args.user,
            args.agent,
            admin=args.admin,
            ttl=ttl,
            label=args.label,
        )
    else:
        secret = secret_from(secret_file=args.jwt_secret_file)
        if not secret:
            raise InvalidRequest(
                "token issue: no HS256 secret: set $TINYMEMORY_JWT_SECRET or --jwt-secret-file, or use "
                "--token-file"
            )
        if len(secret.encode()) < 32:
            raise InvalidRequest("token issue: the HS256 secret must be at least 32 bytes")
        token = issue_jwt(
            secret,
            args.workspace,
            args.user,
            args.agent,
            admin=args.admin,
            ttl=ttl,
            issuer=args.jwt_issuer,
            audience=args.jwt_audience,
        )
    sys.stdout.write(token + "\n")
    return 0
