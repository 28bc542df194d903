"""`tinymemory serve`: the memory service (HTTP API, MCP gateway at /mcp, inspector at /)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

from tinymemory.cli.common import (
    NO_EMBEDDER_HELP,
    add_db_flag,
    add_env_option,
    add_env_switch,
    add_hs256_flags,
)

SERVICE_EXTRA = "tinymemory[service]"
# The top-level modules of the `service` extra's packages (fastapi, uvicorn, PyJWT, prometheus-client).
SERVICE_MODULES = ("fastapi", "uvicorn", "jwt", "prometheus_client")
MAX_WORKERS = 64


def default_workers() -> int:
    """The cores this process may run on."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the memory service: the HTTP memory API, the MCP gateway and the inspector page",
        description="Run the memory service on one store. Memory routes need a bearer token: a JWT "
        "(HS256 with --jwt-secret-file or $TINYMEMORY_JWT_SECRET, RS256 with --jwt-public-key), or an "
        "opaque token listed in --token-file. --dev makes a development secret and prints an admin "
        "token. --workers N runs N processes over the store on one port (default: one per core), "
        "restarts one that dies, runs the periodic gate in one of them and drains them all on "
        "SIGINT/SIGTERM. Every flag has a TINYMEMORY_* variable.",
    )
    add_db_flag(parser)
    add_env_option(parser, "--host", "TINYMEMORY_HOST", "default: 127.0.0.1", "127.0.0.1")
    add_env_option(parser, "--port", "TINYMEMORY_PORT", "default: 8765; 0 picks one", "8765")
    add_env_option(
        parser,
        "--workers",
        "TINYMEMORY_WORKERS",
        "worker processes over the one store, sharing the port (default: the cores, "
        f"{default_workers()} here); 1 serves from this process alone",
        str(default_workers()),
    )
    add_env_option(
        parser,
        "--policy",
        "TINYMEMORY_POLICY",
        "a MemoryPolicy file for every workspace, or a folder of <workspace>.yaml files "
        "(_default.yaml for the rest) (default: $TINYMEMORY_POLICY, else the built-in policy)",
    )
    add_hs256_flags(parser)
    add_env_option(
        parser,
        "--jwt-public-key",
        "TINYMEMORY_JWT_PUBLIC_KEY_FILE",
        "PEM file of the RS256 public key tokens are verified with",
    )
    add_env_option(
        parser,
        "--token-file",
        "TINYMEMORY_TOKEN_FILE",
        "YAML/JSON file of opaque tokens (their SHA-256), see `tinymemory token issue --token-file`",
    )
    add_env_option(
        parser,
        "--max-body-bytes",
        "TINYMEMORY_MAX_BODY_BYTES",
        "largest request body accepted, in bytes (default: 4 MiB)",
        "4194304",
    )
    add_env_option(
        parser,
        "--gate-seconds",
        "TINYMEMORY_GATE_SECONDS",
        "how often the shared-write gate runs in the background, in seconds; 0 never (default: 60)",
        "60",
    )
    add_env_option(
        parser,
        "--retention-seconds",
        "TINYMEMORY_RETENTION_SECONDS",
        "how often the retention job forgets and purges expired memories, in seconds; 0 never "
        "(default: 3600)",
        "3600",
    )
    add_env_switch(
        parser,
        "--dev",
        "TINYMEMORY_DEV",
        "development mode: a secret kept beside the store and an admin token printed at start",
    )
    add_env_switch(parser, "--no-embedder", "TINYMEMORY_NO_EMBEDDER", NO_EMBEDDER_HELP)
    parser.set_defaults(func=run)


def settings_of(args: argparse.Namespace) -> Any:
    from tinymemory.api import InvalidRequest
    from tinymemory.engines.paths import default_db_path
    from tinymemory.service.settings import ServiceSettings, read_secret_file, secret_from

    def integer(flag: str, value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise InvalidRequest(f"serve: `--{flag}` must be an integer, got {str(value)[:40]!r}") from None

    port = integer("port", args.port)
    try:
        gate_seconds = float(args.gate_seconds)
    except ValueError:
        raise InvalidRequest(
            f"serve: `--gate-seconds` must be a number, got {str(args.gate_seconds)[:40]!r}"
        ) from None
    try:
        retention_seconds = float(args.retention_seconds)
    except ValueError:
        raise InvalidRequest(
            f"serve: `--retention-seconds` must be a number, got {str(args.retention_seconds)[:40]!r}"
        ) from None
    return ServiceSettings(
        db=args.db or str(default_db_path()),
        policy=Path(args.policy) if args.policy else None,
        host=args.host,
        port=port,
        jwt_secret=secret_from(secret_file=args.jwt_secret_file),
        jwt_public_key=read_secret_file(args.jwt_public_key, "RS256 public key")
        if args.jwt_public_key
        else None,
        jwt_issuer=args.jwt_issuer or None,
        jwt_audience=args.jwt_audience or None,
        token_file=Path(args.token_file) if args.token_file else None,
        embedder=None if args.no_embedder else "default",
        max_body_bytes=integer("max-body-bytes", args.max_body_bytes),
        gate_seconds=gate_seconds,
        retention_seconds=retention_seconds,
    )


def workers_of(args: argparse.Namespace) -> int:
    from tinymemory.api import InvalidRequest

    try:
        workers = int(args.workers)
    except ValueError:
        workers = 0
    if not 1 <= workers <= MAX_WORKERS:
        raise InvalidRequest(
            f"serve: `--workers` must be an integer from 1 to {MAX_WORKERS}, got {str(args.workers)[:40]!r}"
        )
    return workers


def require_service_extra(op: str = "serve", modules: tuple[str, ...] = SERVICE_MODULES) -> None:
    """Refuse in one line that names the extra when the service's packages (or the `modules` of them
    that `op` needs) are missing: a core install has no web stack, and an ImportError from deep inside
    the app would not say what to install."""
    from tinymemory.api import Unsupported

    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise Unsupported(
            f"{op}: the memory service needs the service extra ({', '.join(missing)} not installed); "
            f"install it with `pip install '{SERVICE_EXTRA}'`"
        )


def run(args: argparse.Namespace) -> int:
    require_service_extra()
    from tinymemory.service.server import serve

    settings = settings_of(args)
    workers = workers_of(args)
    if not settings.verifies_tokens and not args.dev:
        import sys

        sys.stderr.write(
            "tinymemory serve: no way to verify tokens is configured, so every memory route answers "
            "401; set $TINYMEMORY_JWT_SECRET, --jwt-public-key or --token-file, or use --dev\n"
        )
    return serve(settings, dev=args.dev, workers=workers)
