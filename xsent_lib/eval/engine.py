"""The SentEval-style engine: ``Evaluation(params, batcher, prepare).eval(tasks)``.

An encoder written for SentEval plugs in unchanged: ``prepare(params, samples)`` sees every sentence
of a task once (as token lists), ``batcher(params, batch)`` returns one embedding row per sentence
of a batch. Sentences are sorted by length before batching, as in SentEval, and the rows are put
back in the original order. Our own encoders plug in through :func:`batcher_from_encoder`.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import inspect
import logging
import time
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from xsent_lib.base.runtime import LIBRARY_MAX_SEED, check_seed

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
            raise AttributeError(f"params has no field {name!r}; set "
                                 f"params[{name!r}] first.") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


DEFAULT_PARAMS = {"batch_size": 128, "seed": 1111, "kfold": 10, "tokenized": True, "mode": "fast"}
# SentEval's own defaults (senteval.engine.SE): used as soon as params look like SentEval's.
SENTEVAL_DEFAULTS = {"batch_size": 128, "seed": 1111, "kfold": 5, "usepytorch": True,
                     "classifier": {"nhid": 0}, "tokenized": True}
# SentEval's MLP defaults (senteval.tools.classifier.MLP) for keys the classifier dict leaves out.
SENTEVAL_MLP_DEFAULTS = {"nhid": 0, "optim": "adam", "batch_size": 64, "tenacity": 5,
                         "epoch_size": 4, "max_epoch": 200, "dropout": 0.0, "noreg": False}
# SentEval's L2 grids: 10^-5..10^-2 with PyTorch; scikit-learn's C per protocol with
# usepytorch=False.
SENTEVAL_L2 = (1e-5, 1e-4, 1e-3, 1e-2)
SENTEVAL_SKLEARN_C = {"cv": tuple(2.0 ** t for t in range(-2, 4)),
                      "cv_test": tuple(2.0 ** t for t in range(-1, 6)),
                      "split": tuple(2.0 ** t for t in range(-2, 4))}
logger = logging.getLogger("xsent_lib.eval")


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
    """Evaluate any encoder through SentEval's two callbacks, on task objects or on SentEval's task
    names.

    ``eval`` takes our task objects (``TransferTask(data)``, ...) or SentEval's names (``'MR'``,
    ``'STS14'``, ``'BigramShift'``, ...; :data:`~xsent_lib.eval.suite.SENTEVAL_ENGINE_TASKS`), read
    from ``params['task_path']`` in SentEval's folder layout. Tasks given by name return SentEval's
    result dicts (keys, layout, rounding); our fuller results for them are kept in :attr:`details`.

    Two sets of ``params``:

    * **SentEval's** (``usepytorch``, ``task_path`` or a ``classifier`` dict present, or the
      :class:`SE` entry point): SentEval's defaults (kfold 5, batch 128, seed 1111,
      ``classifier={'nhid': 0}``) and its classifiers: ``usepytorch=True`` trains the dict's model
      (``nhid``, ``optim`` such as ``'rmsprop'`` or ``'sgd,lr=0.1'``, ``batch_size``, ``tenacity``,
      ``epoch_size``, ``max_epoch``, ``dropout``) over SentEval's L2 grid; ``usepytorch=False`` is
      SentEval's scikit-learn logistic regression (its C grids, its folds, scikit-learn's lbfgs
      without its per-fit overhead: :mod:`~xsent_lib.eval.sklearn_protocols`). SICK-R / STS-B use
      SentEval's fixed relatedness regressor, which ignores the classifier dict there too.
      ``similarity`` (a function of two vectors) replaces the cosine of the STS tasks. ``mode`` is
      refused here.
    * **Ours** (otherwise): ``mode`` (``"fast"`` or ``"full"`` budgets, see
      :class:`~xsent_lib.eval.classifier_config.ClassifierConfig`) or ``classifier`` (a
      ClassifierConfig); ``kfold`` (10 in ``full``; ``fast`` uses 5 unless ``kfold`` is given, and
      says so in :attr:`notes`).

    Both: ``batch_size`` (sentences per ``batcher`` call), ``seed``, ``tokenized`` (True: the
    batcher receives token lists split on whitespace, as SentEval gives them; False: raw strings),
    ``device``. User code may add its own fields in ``prepare``. Every setting that changes what was
    asked is written to :attr:`notes` and logged (logger ``xsent_lib.eval``).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    senteval_style: bool | None = None  # None: decided from params; SE sets True

    def __init__(self, params: dict | None, batcher: Batcher,
                 prepare: Prepare | None = None) -> None:
        if not callable(batcher):
            raise TypeError("batcher must be a callable batcher(params, batch) -> np.ndarray.")
        if prepare is not None and not callable(prepare):
            raise TypeError("prepare must be a callable prepare(params, samples) or None.")
        given = dict(params or {})
        self.given = set(given)
        style = self.senteval_style
        if style is None:
            style = bool({"usepytorch", "task_path"} & self.given) \
                or isinstance(given.get("classifier"), dict)
        self.senteval_style = style
        self.notes: list[str] = []
        self.details: dict[str, dict] = {}
        self.results: dict = {}
        self.params = Params({**(SENTEVAL_DEFAULTS if style else DEFAULT_PARAMS), **given})
        if style:
            self._check_senteval_params()
        elif self.params.mode not in ("fast", "full"):
            raise ValueError(f"params['mode'] must be 'fast' or 'full', got {self.params.mode!r}.")
        if isinstance(self.params.batch_size, bool) \
                or not isinstance(self.params.batch_size, (int, np.integer)) \
                or int(self.params.batch_size) < 1:
            raise ValueError("params['batch_size'] must be a positive integer, got "
                             f"{self.params.batch_size!r}.")
        k = self.params.get("kfold")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
            raise ValueError(f"params['kfold'] must be an integer >= 2, got {k!r}.")
        sim = self.params.get("similarity")
        if sim is not None and not callable(sim):
            raise TypeError("params['similarity'] must be a function similarity(u, v) -> float of "
                            "two vectors.")
        check_seed(self.params.seed, "params['seed']", LIBRARY_MAX_SEED)
        self.batcher = batcher
        self.prepare = prepare
        self._task: Any = None

    def _note(self, message: str) -> None:
        """Record (and log) a setting that differs from what the params alone would suggest."""
        if message not in self.notes:
            self.notes.append(message)
            logger.info(message)

    def _check_senteval_params(self) -> None:
        p = self.params
        if "mode" in self.given:
            raise ValueError("params['mode'] picks our own budgets, but these params are "
                             "SentEval's (usepytorch / task_path / a classifier dict): SentEval's "
                             "classifier settings apply. Drop 'mode', or drop SentEval's keys and "
                             "give mode='fast'|'full'.")
        if not isinstance(p.usepytorch, bool):
            raise TypeError(f"params['usepytorch'] must be True or False, got {p.usepytorch!r}.")
        spec = p.classifier
        if not isinstance(spec, dict):
            raise TypeError("with SentEval's params, params['classifier'] must be "
                            "SentEval's dict, e.g. {'nhid': 0, 'optim': 'adam', 'batch_size': 64, "
                            "'tenacity': 5, 'epoch_size': 4}.")
        unknown = set(spec) - set(SENTEVAL_MLP_DEFAULTS)
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)} in params['classifier']; "
                             f"SentEval's are {sorted(SENTEVAL_MLP_DEFAULTS)}.")
        if "nhid" not in spec:
            raise ValueError("params['classifier'] needs 'nhid' (0: logistic regression), as "
                             "SentEval asserts.")
        from xsent_lib.eval.classifier_config import parse_optim

        parse_optim(str(spec.get("optim", "adam")))
        for key in ("nhid", "batch_size", "tenacity", "epoch_size", "max_epoch"):
            v = spec.get(key, SENTEVAL_MLP_DEFAULTS[key])
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) \
                    or v < (0 if key == "nhid" else 1):
                raise ValueError(f"params['classifier'][{key!r}] must be a "
                                 f"{'non-negative' if key == 'nhid' else 'positive'} "
                                 f"integer, got {v!r}.")
        if not 0.0 <= float(spec.get("dropout", 0.0)) < 1.0:
            raise ValueError("params['classifier']['dropout'] must lie in [0, 1), got "
                             f"{spec['dropout']!r}.")
        if "nhid" in self.given and p.nhid != spec["nhid"]:
            self._note(f"params['nhid']={p.nhid} is not read by SentEval's classifiers (they read "
                       f"params['classifier']['nhid']={spec['nhid']}); it has no effect "
                       "here either.")
        if not p.usepytorch and spec["nhid"] != 0:
            self._note("usepytorch=False: SentEval fits scikit-learn's logistic "
                       f"regression whatever params['classifier']['nhid'] says ({spec['nhid']}); "
                       "so do we (its folds and C grids).")

    def classifier_config(self, probe: bool = False):
        """The classifier configuration for the task running now (or for a run without one).

        SentEval's params: SentEval's classifier for that task's protocol (see the class docstring).
        Ours: ``params.classifier`` if it is a ClassifierConfig, else the ``mode`` budget
        (``probe=True``: the probing MLP).
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        from xsent_lib.eval.classifier import ClassifierConfig

        if self.senteval_style:
            return self._senteval_config()
        device = self.params.get("device", "auto")
        if probe:
            return ClassifierConfig.probe(self.params.mode, seed=int(self.params.seed),
                                          device=device)
        cfg = self.params.get("classifier")
        if cfg is not None:
            if not isinstance(cfg, ClassifierConfig):
                raise TypeError("params['classifier'] must be a ClassifierConfig or SentEval's "
                                "classifier dict.")
            if "kfold" in self.given and int(self.params.kfold) != cfg.kfold:
                raise ValueError(f"params['kfold']={self.params.kfold} but params['classifier'] "
                                 f"has kfold={cfg.kfold}; give one (e.g. "
                                 "ClassifierConfig.fast(kfold=...)).")
            return cfg
        make = ClassifierConfig.full if self.params.mode == "full" else ClassifierConfig.fast
        overrides = {"seed": int(self.params.seed), "device": device}
        if self.params.mode == "full" or "kfold" in self.given:
            overrides["kfold"] = int(self.params.kfold)
        else:
            self._note("mode='fast': 5 folds (SentEval's prototyping setting); set params['kfold'] "
                       "to change it.")
        if self.params.mode == "fast" and "kfold" in self.given:
            self._note(f"mode='fast' with kfold={self.params.kfold}: the folds are yours, the "
                       "other budgets fast's (2 L2 values, batch 128, tenacity 3, epoch_size 2).")
        return make(**overrides)

    def _senteval_config(self):
        """SentEval's classifier for the current task: its MLP from the dict, its sklearn LR, or its
        relatedness head."""
        from xsent_lib.eval.classifier import ClassifierConfig
        from xsent_lib.eval.transfer import RelatednessTask

        p, task = self.params, self._task
        common = {"seed": int(p.seed), "device": p.get("device", "auto"), "kfold": int(p.kfold)}
        # senteval.tools.relatedness: LR, Adam, batch 64, no L2, 50-pass epochs
        if isinstance(task, RelatednessTask):
            return ClassifierConfig.full(solver="adam", l2=(0.0,), batch_size=64, epoch_size=50,
                                         tenacity=4, stale_count="total", max_epochs=21,
                                         min_steps_per_epoch=1, loss="mse", **common)
        spec = {**SENTEVAL_MLP_DEFAULTS, **p.classifier, **getattr(task, "senteval_overrides", {})}
        protocol = getattr(task, "protocol", "split")
        if not p.usepytorch:
            grid = (1e9,) if spec["noreg"] \
                else SENTEVAL_SKLEARN_C.get(protocol, SENTEVAL_SKLEARN_C["split"])
            return ClassifierConfig.full(solver="sklearn", penalty="C", l2=grid, **common)
        return ClassifierConfig.full(
            nhid=(int(spec["nhid"]),), dropout=(float(spec["dropout"]),),
            l2=(1e-9,) if spec["noreg"] else SENTEVAL_L2,
            solver="adam", optim=str(spec["optim"]), batch_size=int(spec["batch_size"]),
            tenacity=int(spec["tenacity"]), epoch_size=int(spec["epoch_size"]),
            max_epochs=int(spec["max_epoch"]),
            min_steps_per_epoch=1, validation_split=0.05, **common)

    @property
    def similarity(self) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """Row-wise similarity of the STS tasks: cosine, or SentEval's ``params['similarity'](u,
        v)`` pair by pair.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        from xsent_lib.eval.sts import cosine_rows

        sim = self.params.get("similarity")
        if sim is None:
            return cosine_rows

        def rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
            return np.nan_to_num(
                np.array([float(sim(a, b)) for a, b in zip(u, v)], dtype=np.float64))

        return rows

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
            emb = _batch_output(self.batcher(self.params, batch), batch,
                                chunks[0].shape[1] if chunks else None, bool(self.senteval_style))
            chunks.append(emb)
        out = np.empty((n, chunks[0].shape[1]), np.result_type(*chunks))
        out[order] = np.concatenate(chunks)
        return out

    def eval(self, tasks: Any) -> dict:
        """Run one task (returns its result dict) or a list of tasks (returns ``{name: result}``).

        A task is one of our task objects or one of SentEval's task names (read from
        ``params['task_path']``). Each task's sentences go to ``prepare`` first (as SentEval's
        ``samples``), then the task runs. Task objects return our result dicts (with ``task`` and
        wall ``seconds``); names return SentEval's dicts (rounded as SentEval rounds), ours kept in
        :attr:`details`.
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        from xsent_lib.eval.suite import senteval_engine_task

        single = isinstance(tasks, str) or hasattr(tasks, "run")
        todo = [tasks] if single else list(tasks)
        resolved = []
        for t in todo:
            if isinstance(t, str):
                resolved.append((t, senteval_engine_task(t, self.params.get("task_path")), True))
            elif hasattr(t, "run") and hasattr(t, "sentences") and hasattr(t, "name"):
                resolved.append((t.name, t, False))
            else:
                raise TypeError(f"{t!r} is not an evaluation task: give SentEval task names (e.g. "
                                "'MR') or task objects of xsent_lib.eval (e.g. "
                                "TransferTask(data)).")
        names = [n for n, _, _ in resolved]
        if len(set(names)) != len(names):
            raise ValueError(f"task names must be unique, got {names}.")
        results = {}
        for name, t, by_name in resolved:
            start = time.perf_counter()
            self.params.current_task = name
            self._task = t
            try:
                if self.prepare is not None:
                    self.prepare(self.params, self._tokens(t.sentences()))
                res = t.run(self)
            finally:
                self._task = None
            res["task"] = name
            res["seconds"] = round(time.perf_counter() - start, 3)
            if by_name:
                self.details[name] = res
                results[name] = senteval_layout(res)
            else:
                res.pop("yhat", None)
                results[name] = res
        self.results = results[names[0]] if single else results
        return self.results


class SE(Evaluation):
    """SentEval's entry point, ``SE(params, batcher, prepare).eval(['MR', 'STS14'])``: SentEval's
    params always.

    A SentEval script runs unchanged with ``from xsent_lib import eval as senteval``
    (``senteval.engine.SE``).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    senteval_style = True


def senteval_layout(res: dict) -> dict:
    """Our result dict -> SentEval's: its keys, its nesting, its rounding.

    Classification: ``devacc``/``acc`` rounded to 2 decimals (nested CV: the mean of the folds'
    rounded accuracies, as SentEval averages them), ``ndev``/``ntest`` (+ ``f1`` for binary pair
    tasks such as MRPC). Relatedness: ``devpearson``, ``pearson``, ``spearman``, ``mse``, ``yhat``
    (in the file's order; SentEval's is in its length-sorted order), ``ndev``, ``ntest``. STS12-16:
    per dataset ``pearson`` and ``spearman`` as (statistic, p-value) pairs and ``nsamples``, plus
    ``all``: ``{'pearson': {'mean', 'wmean'}, 'spearman': {...}}``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if "subsets" in res:
        out: dict = {}
        for key, sub in res["subsets"].items():
            pv = res.get("pvalues", {}).get(key,
                                            {"pearson": float("nan"), "spearman": float("nan")})
            out[key] = {"pearson": (sub["pearson"], pv["pearson"]),
                        "spearman": (sub["spearman"], pv["spearman"]), "nsamples": sub["n"]}
        out["all"] = {stat: {"mean": res["mean"][stat], "wmean": res["wmean"][stat]}
                      for stat in ("pearson", "spearman")}
        return out
    if "devpearson" in res:
        keys = ("devpearson", "pearson", "spearman", "mse", "yhat", "ndev", "ntest")
        return {k: res[k] for k in keys if k in res}
    if "acc" not in res:
        raise ValueError(f"no SentEval layout for a result with keys {sorted(res)}.")
    acc = round(float(np.mean([round(a, 2) for a in res["fold_acc"]])), 2) if "fold_acc" in res \
        else round(res["acc"], 2)
    out = {"devacc": round(float(res["devacc"]), 2), "acc": float(acc), "ndev": int(res["ndev"]),
           "ntest": int(res["ntest"])}
    if "f1" in res:
        out["f1"] = round(float(res["f1"]), 2)
    return out


_FIX = ("return a numpy array of shape (batch, dim), one row per sentence of the batch, in the "
        "batch's order")


def _batch_output(emb: Any, batch: list, dim: int | None, keep_float64: bool = False) -> np.ndarray:
    """Check one batcher result at the boundary and return it as float32 ``(len(batch), dim)``
    (float64 kept when ``keep_float64`` and the batcher gave float64, as SentEval keeps it).

    Each failure says what came back and what to return instead, before torch or numpy fail deeper.
    """
    # a torch tensor, without importing torch
    if hasattr(emb, "detach") and hasattr(emb, "requires_grad"):
        if emb.requires_grad or str(getattr(emb, "device", "cpu")) != "cpu":
            raise TypeError(
                "the batcher returned a torch.Tensor "
                f"(requires_grad={bool(emb.requires_grad)}, device {emb.device}); {_FIX}: end it "
                "with `return emb.detach().cpu().numpy()` (and encode under torch.no_grad()).")
    try:
        arr = np.asarray(emb)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"dtype {arr.dtype}")
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ValueError(f"the batcher's result ({type(emb).__name__}) could not be read as a "
                         f"numeric array ({exc}); {_FIX} (e.g. np.vstack of the "
                         "sentence vectors).") from None
    if arr.ndim != 2:
        raise ValueError(f"the batcher returned a {arr.ndim}-D array of shape {arr.shape} for a "
                         f"batch of {len(batch)} sentences; {_FIX}: a (batch, dim) 2-D array "
                         "(reshape a single vector per sentence with np.vstack, or "
                         "emb.reshape(len(batch), -1)).")
    if arr.shape[0] != len(batch) or arr.shape[1] < 1:
        raise ValueError(f"the batcher returned shape {arr.shape}: {arr.shape[0]} rows for a batch "
                         f"of {len(batch)} sentences; it must return one row per sentence, (batch, "
                         "dim) with dim >= 1.")
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(f"the batcher returned vectors of dimension {arr.shape[1]} but earlier "
                         f"batches gave {dim}; every sentence must get a vector of the same size.")
    # SentEval keeps a batcher's float64 (its scikit-learn fits then see the same numbers); ours
    # store float32, checked after the cast: a float64 beyond float32's range is inf there
    keep = keep_float64 and arr.dtype == np.float64
    arr = arr if keep else arr.astype(np.float32, copy=False)
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        shown = ", ".join(repr(b if isinstance(b, str) else " ".join(b))
                          for b in (batch[i] for i in rows[:3]))
        raise ValueError(f"the batcher returned NaN or infinite values: {len(rows)} of "
                         f"{len(batch)} rows hold NaN or infinite numbers, for sentences "
                         f"{shown}{' ...' if len(rows) > 3 else ''}; check the encoder on these "
                         "sentences (empty or unknown-word sentences, a division by a zero norm).")
    return arr


def batcher_from_encoder(encoder: Any, batch_size: int = 128, device: str = "auto") -> Batcher:
    """A SentEval ``batcher`` calling ``encoder.encode(list[str])`` (token lists are joined with
    spaces).

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
