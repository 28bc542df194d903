"""`Memory.from_config`: a mem0 config dict read for what it means here.

tinymemory keeps vectors, history and ranking in its own engine, so mem0's `vector_store`,
`embedder`, `reranker`, `history_db_path`, `version` and `custom_instructions` have nothing to
configure: they are accepted, so an existing config loads unchanged, and named in one warning. The
`llm` section is honoured for OpenAI-compatible servers (openai, ollama, vllm, lmstudio) and drives
`infer=True`; any other provider is refused. Our own keys: `path` (a SQLite file or a postgresql://
URL, as `open_engine` reads it) and `namespace` (the root every memory of this API lives under).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tinymemory.api import Namespace
from tinymemory.api.echo import echo
from tinymemory.compat.mem0.errors import UnsupportedFeature, invalid
from tinymemory.llm import LLMConfig

_log = logging.getLogger("tinymemory.compat.mem0")

IGNORED = ("vector_store", "embedder", "reranker", "history_db_path", "version", "custom_instructions")
OWN = ("path", "namespace")
# provider -> (its base-url key, the default base url, the default model or None when required)
PROVIDERS: dict[str, tuple[str, str, str | None]] = {
    "openai": ("openai_base_url", "https://api.openai.com/v1", "gpt-5-mini"),
    "ollama": ("ollama_base_url", "http://localhost:11434", "llama3.1:70b"),
    "vllm": ("vllm_base_url", "http://localhost:8000/v1", None),
    "lmstudio": ("lmstudio_base_url", "http://localhost:1234/v1", None),
}
_ENV_BASE = {"openai": "OPENAI_BASE_URL", "vllm": "VLLM_BASE_URL"}
_ENV_KEY = {"openai": "OPENAI_API_KEY"}
MAX_TOKENS = 1_000_000


@dataclass(frozen=True, slots=True)
class Settings:
    """What a config dict sets; None leaves the constructor's default."""

    path: str | None = None
    namespace: str | None = None
    llm: LLMConfig | None = None


def read_config(config: object, env: Mapping[str, str] | None = None) -> Settings:
    """Read a mem0-style config (a dict, or an object with pydantic's `model_dump`)."""
    op = "from_config"
    if config is None:
        return Settings()
    if not isinstance(config, Mapping) and hasattr(config, "model_dump"):
        config = config.model_dump(exclude_unset=True)
    if not isinstance(config, Mapping):
        raise invalid(op, "config", f"must be a dict, got {type(config).__name__}")
    known = (*IGNORED, *OWN, "llm")
    for key in config:
        if key not in known:
            raise invalid(op, echo(key, 40), f"is not a config key (known: {', '.join(known)})")
    ignored = [k for k in IGNORED if k in config]
    if ignored:
        _log.warning(
            "from_config: %s ignored: tinymemory keeps vectors, history and ranking in its own engine",
            ", ".join(ignored),
        )
    path, namespace = config.get("path"), config.get("namespace")
    if path is not None and not isinstance(path, str | os.PathLike):
        raise invalid(op, "path", "must be a SQLite file path or a postgresql:// URL")
    if namespace is not None:
        if not isinstance(namespace, str):
            raise invalid(op, "namespace", "must be a namespace string such as `team:acme`")
        Namespace.parse(namespace, field=f"{op}: `namespace`")
    llm = config.get("llm")
    return Settings(
        None if path is None else os.fspath(path),
        namespace,
        None if llm is None else read_llm(llm, os.environ if env is None else env),
    )


def read_llm(section: object, env: Mapping[str, str]) -> LLMConfig:
    """mem0's `{"provider": ..., "config": {...}}` as an OpenAI-compatible client's settings."""
    op = "from_config"
    if not isinstance(section, Mapping):
        raise invalid(op, "llm", "must be a dict with `provider` and `config`")
    provider = section.get("provider", "openai")
    cfg = section.get("config") or {}
    if not isinstance(cfg, Mapping):
        raise invalid(op, "llm.config", "must be a dict")
    if not isinstance(provider, str):
        raise invalid(op, "llm.provider", f"must be a provider name, got {type(provider).__name__}")
    if provider not in PROVIDERS:
        raise UnsupportedFeature(
            f"{op}: `llm.provider` `{echo(provider)}` is not supported (supported: {', '.join(PROVIDERS)};"
            " any OpenAI-compatible server works as `openai` with `openai_base_url`)"
        )
    url_key, default_url, default_model = PROVIDERS[provider]
    base = cfg.get(url_key) or env.get(_ENV_BASE.get(provider, ""), "") or default_url
    if not isinstance(base, str):
        raise invalid(op, f"llm.config.{url_key}", "must be a URL string")
    if provider == "ollama" and not base.rstrip("/").endswith("/v1"):
        base = base.rstrip("/") + "/v1"  # ollama serves the OpenAI-compatible API under /v1
    model = cfg.get("model") or default_model
    if not isinstance(model, str) or not model.strip():
        raise invalid(op, "llm.config.model", f"must be a model name (required for provider `{provider}`)")
    api_key = cfg.get("api_key") or env.get(_ENV_KEY.get(provider, ""), "") or None
    if api_key is not None and not isinstance(api_key, str):
        raise invalid(op, "llm.config.api_key", "must be a string")
    kw: dict[str, Any] = {}
    temperature = cfg.get("temperature")
    if temperature is not None:
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            raise invalid(op, "llm.config.temperature", "must be a number")
        if not 0 <= temperature <= 2:  # False for NaN
            raise invalid(op, "llm.config.temperature", f"must be between 0 and 2, got {echo(temperature)}")
        kw["temperature"] = float(temperature)
    max_tokens = cfg.get("max_tokens")
    if max_tokens is not None:
        if (
            isinstance(max_tokens, bool)
            or not isinstance(max_tokens, int | float)
            or not 1 <= max_tokens <= MAX_TOKENS  # False for NaN
            or max_tokens != int(max_tokens)
        ):
            raise invalid(
                op,
                "llm.config.max_tokens",
                f"must be a whole number from 1 to {MAX_TOKENS}, got {echo(max_tokens)}",
            )
        kw["max_tokens"] = int(max_tokens)
    return LLMConfig(base.rstrip("/"), model, api_key, **kw)
