"""The SentEval-style engine: ``Evaluation(params, batcher, prepare).eval(tasks)``.

An encoder written for SentEval plugs in unchanged: ``prepare(params, samples)`` sees every sentence
of a task once (as token lists), ``batcher(params, batch)`` returns one embedding row per sentence of
a batch. Sentences are sorted by length before batching, as in SentEval, and the rows are put back in
the original order. Our own encoders plug in through :func:`batcher_from_encoder`.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import inspect
import time
import warnings
from typing import Any, Callable, Iterable, Protocol, Sequence

import numpy as np

from xsent_lib.base.runtime import check_seed

Batcher = Callable[[Any, list], np.ndarray]
Prepare = Callable[[Any, list], Any]


class Params(dict):
    """A dict whose keys are also attributes (``params.batch_size``), like SentEval's ``dotdict``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"params has no field {name!r}; set params[{name!r}] first.") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


DEFAULT_PARAMS = {"batch_size": 128, "seed": 1111, "kfold": 10, "tokenized": True, "mode": "fast"}


class Task(Protocol):
    """What :meth:`Evaluation.eval` needs from a task: a name, its sentences, and a ``run``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    name: str

    def sentences(self) -> list[str]:
        """Every sentence the task will encode (given to ``prepare``).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """

    def run(self, ev: Evaluation) -> dict:
        """Encode through ``ev.encode`` and return a JSON-ready result dict.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """


class Evaluation:
    """Evaluate any encoder on data-container tasks through SentEval's two callbacks.

    ``params`` keys (all optional): ``batch_size`` (sentences per ``batcher`` call, 128), ``seed`` (1111, as
    SentEval), ``kfold`` (10), ``mode`` (``"fast"`` or ``"full"`` classifier budgets, see
    :class:`~xsent_lib.eval.classifier.ClassifierConfig`), ``classifier`` (a ClassifierConfig, or SentEval's
    dict such as ``{'nhid': 0, 'optim': 'adam', 'batch_size': 64, 'tenacity': 5, 'epoch_size': 4}``), ``tokenized`` (True: the batcher receives token lists split on whitespace, as SentEval
    gives them; False: raw strings), ``device``. User code may add its own fields in ``prepare``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, params: dict | None, batcher: Batcher, prepare: Prepare | None = None) -> None:
        if not callable(batcher):
            raise TypeError("batcher must be a callable batcher(params, batch) -> np.ndarray.")
        if prepare is not None and not callable(prepare):
            raise TypeError("prepare must be a callable prepare(params, samples) or None.")
        self.params = Params({**DEFAULT_PARAMS, **(params or {})})
        if self.params.mode not in ("fast", "full"):
            raise ValueError(f"params['mode'] must be 'fast' or 'full', got {self.params.mode!r}.")
        if int(self.params.batch_size) < 1:
            raise ValueError(f"params['batch_size'] must be positive, got {self.params.batch_size!r}.")
        check_seed(self.params.seed, "params['seed']")
        self.batcher = batcher
        self.prepare = prepare

    def classifier_config(self, probe: bool = False):
        """The classifier configuration for this run (``params.classifier`` if set, else by ``mode``).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        from xsent_lib.eval.classifier import ClassifierConfig

        if probe:
            return ClassifierConfig.probe(self.params.mode, seed=int(self.params.seed),
                                          device=self.params.get("device", "auto"))
        cfg = self.params.get("classifier")
        if isinstance(cfg, dict):
            return _from_senteval_dict(cfg, self.params)
        if cfg is not None:
            if not isinstance(cfg, ClassifierConfig):
                raise TypeError("params['classifier'] must be a ClassifierConfig or SentEval's classifier dict.")
            return cfg
        make = ClassifierConfig.full if self.params.mode == "full" else ClassifierConfig.fast
        overrides = {"seed": int(self.params.seed), "device": self.params.get("device", "auto")}
        if self.params.mode == "full":
            overrides["kfold"] = int(self.params.kfold)
        return make(**overrides)

    def _tokens(self, sentences: Sequence[str]) -> list:
        if not self.params.tokenized:
            return list(sentences)
        return [s.split() or ["."] for s in sentences]  # SentEval replaces empty sentences by ['.']

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """Embed ``sentences`` with the batcher: sorted by length, batched, returned in input order.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
            raise TypeError("encode expects a list of strings.")
        n = len(sentences)
        if n == 0:
            raise ValueError("encode got no sentences.")
        lengths = np.fromiter((len(s.split()) for s in sentences), dtype=np.int64, count=n)
        order = np.argsort(lengths, kind="stable")
        tokens = self._tokens([sentences[i] for i in order])
        bs = int(self.params.batch_size)
        chunks: list[np.ndarray] = []
        for s in range(0, n, bs):
            batch = tokens[s : s + bs]
            emb = _batch_output(self.batcher(self.params, batch), batch, chunks[0].shape[1] if chunks else None)
            chunks.append(emb)
        out = np.empty((n, chunks[0].shape[1]), np.float32)
        out[order] = np.concatenate(chunks)
        return out

    def eval(self, tasks: Task | Iterable[Task]) -> dict:
        """Run one task (returns its result dict) or several (returns ``{name: result}``).

        Each task's sentences go to ``prepare`` first (as SentEval's ``samples``), then the task runs;
        every result carries the task name and its wall time in seconds.
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        single = hasattr(tasks, "run")
        todo = [tasks] if single else list(tasks)
        for t in todo:
            if not (hasattr(t, "run") and hasattr(t, "sentences") and hasattr(t, "name")):
                raise TypeError(f"{t!r} is not an evaluation task; wrap data containers with the task classes "
                                "of xsent_lib.eval (e.g. TransferTask(data)).")
        names = [t.name for t in todo]
        if len(set(names)) != len(names):
            raise ValueError(f"task names must be unique, got {names}.")
        results = {}
        for t in todo:
            start = time.perf_counter()
            self.params.current_task = t.name
            if self.prepare is not None:
                self.prepare(self.params, self._tokens(t.sentences()))
            res = t.run(self)
            res["task"] = t.name
            res["seconds"] = round(time.perf_counter() - start, 3)
            results[t.name] = res
        return results[names[0]] if single else results


_FIX = "return a numpy array of shape (batch, dim), one row per sentence of the batch, in the batch's order"


def _batch_output(emb: Any, batch: list, dim: int | None) -> np.ndarray:
    """Check one batcher result at the boundary and return it as float32 ``(len(batch), dim)``.

    Each failure says what came back and what to return instead, before torch or numpy fail deeper.
    """
    if hasattr(emb, "detach") and hasattr(emb, "requires_grad"):  # a torch tensor, without importing torch
        if emb.requires_grad or str(getattr(emb, "device", "cpu")) != "cpu":
            raise TypeError(
                f"the batcher returned a torch.Tensor (requires_grad={bool(emb.requires_grad)}, device "
                f"{emb.device}); {_FIX}: end it with `return emb.detach().cpu().numpy()` (and encode under "
                "torch.no_grad()).")
    try:
        arr = np.asarray(emb)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"dtype {arr.dtype}")
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ValueError(f"the batcher's result ({type(emb).__name__}) could not be read as a numeric array "
                         f"({exc}); {_FIX} (e.g. np.vstack of the sentence vectors).") from None
    if arr.ndim != 2:
        raise ValueError(f"the batcher returned a {arr.ndim}-D array of shape {arr.shape} for a batch of {len(batch)} "
                         f"sentences; {_FIX}: a (batch, dim) 2-D array (reshape a single vector per sentence with "
                         "np.vstack, or emb.reshape(len(batch), -1)).")
    if arr.shape[0] != len(batch) or arr.shape[1] < 1:
        raise ValueError(f"the batcher returned shape {arr.shape}: {arr.shape[0]} rows for a batch of {len(batch)} "
                         f"sentences; it must return one row per sentence, (batch, dim) with dim >= 1.")
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(f"the batcher returned vectors of dimension {arr.shape[1]} but earlier batches gave {dim}; "
                         "every sentence must get a vector of the same size.")
    arr = arr.astype(np.float32, copy=False)  # checked after the cast: a float64 beyond float32's range is inf here
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        shown = ", ".join(repr(b if isinstance(b, str) else " ".join(b)) for b in (batch[i] for i in rows[:3]))
        raise ValueError(f"the batcher returned NaN or infinite values: {len(rows)} of {len(batch)} rows hold NaN or "
                         f"infinite numbers, for sentences {shown}{' ...' if len(rows) > 3 else ''}; check the encoder "
                         "on these sentences (empty or unknown-word sentences, a division by a zero norm).")
    return arr


_SENTEVAL_KEYS = {"nhid", "optim", "batch_size", "tenacity", "epoch_size", "dropout", "max_epoch", "noreg"}


def _from_senteval_dict(spec: dict, params: Params):
    """Map SentEval's ``params['classifier']`` dict onto a ClassifierConfig trained SentEval's way (Adam).

    SentEval's ``optim`` strings other than ``adam`` (e.g. the prototyping ``rmsprop``) are run with Adam
    and a warning; ``noreg`` searches only a zero penalty.
    """
    from xsent_lib.eval.classifier import ClassifierConfig

    unknown = set(spec) - _SENTEVAL_KEYS
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)} in params['classifier']; SentEval's are {sorted(_SENTEVAL_KEYS)}.")
    optim = str(spec.get("optim", "adam"))
    if not optim.startswith("adam"):
        warnings.warn(f"optim={optim!r} is run with Adam: xsent_lib implements SentEval's default optimiser only.",
                      stacklevel=3)
    over = {"nhid": (int(spec.get("nhid", 0)),), "dropout": (float(spec.get("dropout", 0.0)),), "solver": "adam",
            "seed": int(params.seed), "kfold": int(params.kfold), "device": params.get("device", "auto")}
    for ours, theirs in (("batch_size", "batch_size"), ("tenacity", "tenacity"), ("epoch_size", "epoch_size"),
                         ("max_epochs", "max_epoch")):
        if theirs in spec:
            over[ours] = int(spec[theirs])
    if spec.get("noreg"):
        over["l2"] = (0.0,)
    return ClassifierConfig.full(**over)


def batcher_from_encoder(encoder: Any, batch_size: int = 128, device: str = "auto") -> Batcher:
    """A SentEval ``batcher`` calling ``encoder.encode(list[str])`` (token lists are joined with spaces).

    Works with :class:`xsent_lib.encoders.base.SentenceEncoder` and any object with that ``encode``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not hasattr(encoder, "encode"):
        raise TypeError(f"{type(encoder).__name__} has no encode(list[str]) method.")

    accepted = inspect.signature(encoder.encode).parameters
    kwargs = {k: v for k, v in (("batch_size", batch_size), ("device", device)) if k in accepted}

    def batcher(params: Any, batch: list) -> np.ndarray:
        sents = [s if isinstance(s, str) else " ".join(s) for s in batch]
        return np.asarray(encoder.encode(sents, **kwargs))

    return batcher


def batcher_from_function(encode: Callable[[list[str]], np.ndarray]) -> Batcher:
    """A SentEval ``batcher`` from a plain ``encode(list[str]) -> np.ndarray`` function.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not callable(encode):
        raise TypeError("encode must be callable: encode(list[str]) -> np.ndarray.")

    def batcher(params: Any, batch: list) -> np.ndarray:
        return np.asarray(encode([s if isinstance(s, str) else " ".join(s) for s in batch]))

    return batcher
