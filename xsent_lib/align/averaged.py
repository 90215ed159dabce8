"""Sentence vectors as the mean of cross-lingually mapped word vectors: Wang et al.'s "mean"
baseline rows.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.pipeline import unsupervised_align
from xsent_lib.align.procrustes import procrustes
from xsent_lib.align.setting import make_setting
from xsent_lib.data.monodocs import MonoDocs
from xsent_lib.data.word_spaces import sentences_space
from xsent_lib.text import WordTokenizer

#: ``texts -> vectors``
Encode = Callable[[Sequence[str]], np.ndarray]


def averaged_vectors(docs: MonoDocs, pairs_of: Mapping[str, Sequence[tuple[str, str]]], *,
                     dim: int = 32, how: str = "procrustes", muse_epoch: int = 20_000,
                     seed: int = 0) -> tuple[Encode, dict[str, int]]:
    """The paper's "mean" rows: skip-gram vectors per language (on its training text), each
    non-English space mapped onto English, a sentence = the mean of its words' mapped vectors.
    ``how="procrustes"``: Procrustes on a dictionary (``pairs_of[lang]`` = (English word, word)
    pairs); ``how="muse"``: chapter 5's unsupervised pipeline (adversarial game of ``muse_epoch``
    samples x 3 epochs, then refinement; the dictionary only scores, never trains). Returns
    ``(encode, {lang: dictionary pairs in both vocabularies})``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if how not in ("procrustes", "muse"):
        raise ValueError(f"how must be 'procrustes' or 'muse', got {how!r}.")
    tok = WordTokenizer()
    # vectors of this run only: never the shared cache
    with tempfile.TemporaryDirectory(prefix="xsent-wang-") as tmp:
        spaces = {lang: sentences_space(lang, docs.of(lang), dim=dim, seed=seed, epochs=10,
                                        min_count=1, sample=1e-3, cache_dir=tmp)
                  for lang in docs.langs}
    maps, used = {docs.langs[0]: np.eye(dim, dtype=np.float32)}, {}
    en = spaces[docs.langs[0]]
    for lang in docs.langs[1:]:
        sp = spaces[lang]
        rows = [(en.word2id[a], sp.word2id[b]) for a, b in pairs_of.get(lang, [])
                if a in en.word2id and b in sp.word2id]
        used[lang] = len(rows)
        if len(rows) < 2:
            raise ValueError(f"only {len(rows)} dictionary pairs of {lang} are in both "
                             "vocabularies.")
        if how == "procrustes":
            ia, ib = map(list, zip(*rows))
            W = procrustes(sp.vectors[ib], en.vectors[ia])
        else:
            word_pairs = [(b, a) for a, b in pairs_of[lang]]
            half = len(word_pairs) // 2
            setting = make_setting(sp, en, word_pairs[:half], word_pairs[half:],
                                   dictionary="gold lexicon (scoring only)", seed=seed)
            n_words = min(len(sp), len(en))
            config = AdversarialConfig(dis_hidden=256, epoch_size=muse_epoch, n_epochs=3,
                                       most_frequent=n_words, criterion_words=n_words)
            W = unsupervised_align(setting, config, n_restarts=1, seed=seed, max_rank=n_words).W
        maps[lang] = np.asarray(W, np.float32).T  # procrustes convention: X W^T ~ Y
    lookup = {}
    for lang, sp in spaces.items():
        mapped = sp.vectors @ maps[lang]
        for w, i in sp.word2id.items():
            lookup.setdefault(w, mapped[i])

    def encode(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), np.float32)
        for r, words in enumerate(tok.tokenize_batch(list(texts))):
            vecs = [lookup[w] for w in words if w in lookup]
            if vecs:
                out[r] = np.mean(vecs, axis=0)
        return out
    return encode, used
