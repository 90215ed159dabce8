"""XNLI scoring with one frozen English NLI classifier and one sentence encoder per language.

Zero-shot transfer with aligned encoders: each language's sentences are embedded by that language's
encoder and classified by the classifier trained on English ([u, v, |u - v|, u * v] features).
Translate-test: the test pairs are translated into English and read by the English encoder.
Accuracies are in percent; the average runs over every scored language, English included, as the
paper's averages do.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.data.formats import NLIData
from xsent_lib.encoders import NLIClassifier
from xsent_lib.encoders.base import SentenceEncoder

Translate = Callable[[list[str], str, str], list[str]]


def pair_accuracy(classifier: NLIClassifier, encoder: SentenceEncoder, data: NLIData,
                  batch_size: int = 256, device: str | torch.device = "auto") -> float:
    """Accuracy (percent) of ``classifier`` on the pairs of ``data`` embedded by ``encoder``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not isinstance(classifier, NLIClassifier):
        raise TypeError(f"classifier must be an NLIClassifier, got {type(classifier).__name__}.")
    if len(data) < 1:
        raise ValueError("no NLI pairs to score.")
    dev = pick_device(device)
    u = encoder.encode(list(data.premises), batch_size=batch_size, device=dev)
    v = encoder.encode(list(data.hypotheses), batch_size=batch_size, device=dev)
    return _classify(classifier, u, v, data, dev)


def vectors_pair_accuracy(classifier: NLIClassifier, encode: Callable[[list[str]], np.ndarray],
                          data: NLIData, device: str | torch.device = "auto") -> float:
    """Accuracy (percent) of ``classifier`` on ``data`` embedded by a frozen ``encode(list[str]) ->
    [N, d]`` (a shipped encoder such as USE, which is no torch module).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not isinstance(classifier, NLIClassifier):
        raise TypeError(f"classifier must be an NLIClassifier, got {type(classifier).__name__}.")
    if not callable(encode):
        raise TypeError("encode must be callable: encode(list[str]) -> array [N, dim].")
    if len(data) < 1:
        raise ValueError("no NLI pairs to score.")
    u = np.asarray(encode(list(data.premises)), np.float32)
    v = np.asarray(encode(list(data.hypotheses)), np.float32)
    return _classify(classifier, u, v, data, pick_device(device))


def _classify(classifier: NLIClassifier, u: np.ndarray, v: np.ndarray, data: NLIData,
              dev: torch.device) -> float:
    if u.shape[0] != len(data) or v.shape[0] != len(data):
        raise ValueError(f"the encoder returned {u.shape[0]}/{v.shape[0]} vectors for "
                         f"{len(data)} pairs.")
    was_training = classifier.training
    classifier.to(dev).eval()
    try:
        with torch.inference_mode():
            logits = classifier(torch.from_numpy(u).to(dev), torch.from_numpy(v).to(dev))
    finally:
        classifier.train(was_training)
    return 100.0 * float((logits.argmax(1).cpu().numpy() == np.asarray(data.labels)).mean())


def zero_shot_accuracies(classifier: NLIClassifier, encoders: Mapping[str, SentenceEncoder],
                         sets: Mapping[str, NLIData],
                         device: str | torch.device = "auto") -> dict[str, float]:
    """Accuracy per language of ``sets`` with that language's encoder (``encoders[lang]``) and the
    English classifier.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    missing = sorted(set(sets) - set(encoders))
    if missing:
        raise KeyError(f"no encoder for {missing}; encoders exist for {sorted(encoders)}.")
    return {lang: pair_accuracy(classifier, encoders[lang], data, device=device) for lang,
            data in sets.items()}


def translate_test_accuracies(classifier: NLIClassifier, english: SentenceEncoder,
                              sets: Mapping[str, NLIData],
                              translate: Translate,
                              device: str | torch.device = "auto") -> dict[str, float]:
    """Translate-test: every non-English set goes through ``translate(texts, lang, "en")`` and is
    scored with the English encoder and classifier.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = {}
    for lang, data in sets.items():
        if lang != "en":
            premises = translate(list(data.premises), lang, "en")
            hypotheses = translate(list(data.hypotheses), lang, "en")
            if len(premises) != len(data) or len(hypotheses) != len(data):
                raise ValueError(f"translate returned {len(premises)}/{len(hypotheses)} texts for "
                                 f"{len(data)} pairs ({lang}).")
            data = NLIData(premises, hypotheses, np.asarray(data.labels))
        out[lang] = pair_accuracy(classifier, english, data, device=device)
    return out


def with_average(accuracies: Mapping[str, float | None],
                 languages: Sequence[str] | None = None) -> dict[str, float | None]:
    """``accuracies`` (in ``languages`` order when given) plus ``"avg"``, the mean of the numbers
    present (``None`` when a language of ``languages`` is missing, so a partial row never shows a
    misleading mean).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    langs = list(languages) if languages is not None else list(accuracies)
    row = {lang: accuracies.get(lang) for lang in langs}
    values = [v for v in row.values() if v is not None]
    row["avg"] = float(np.mean(values)) if values and len(values) == len(langs) else None
    return row


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman correlation of two equally long sequences (``None`` with fewer than 3 points or no
    spread).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} vs {len(y)}.")
    if len(x) < 3:
        return None
    from scipy.stats import spearmanr

    a, b = np.asarray(x, float), np.asarray(y, float)
    if a.std() == 0 or b.std() == 0:
        return None
    return float(spearmanr(a, b).statistic)
