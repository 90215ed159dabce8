"""Chapter 5's experiments (MUSE, thesis section 4.1) as functions: settings, alignment, evaluation, analyses.

A *setting* is two monolingual embedding spaces (rows sorted by frequency, most frequent first) and a
bilingual dictionary split MUSE-style into a training seed dictionary and disjoint test source words.
Spaces come from our own skip-gram vectors on the cached monolingual text (:func:`real_space`) or on the
synthetic world (:func:`synthetic_space`). On a setting we fit the supervised baseline
(:func:`supervised_map`), the unsupervised pipeline (:func:`unsupervised_align`: adversarial restarts,
CSLS refinement, selection by the unsupervised criterion), and evaluate retrieval with NN / ISF / CSLS
(:func:`evaluate_map`). The rest are the chapter's analyses: hubness, sentence retrieval with
idf-weighted bags of mapped words, word-by-word translation scored with BLEU, the 2-D toy of
Figure 4.1 and the English-English alignments of Figure 4.3.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy import sparse

from xsent_lib.align.adversarial import AdversarialAligner, AdversarialConfig, scheduled_lr
from xsent_lib.align.criterion import unsupervised_criterion
from xsent_lib.align.dictionary import lookup_pairs
from xsent_lib.base.neighbors import csls_knn, inverted_softmax_knn, knn, l2_normalize
from xsent_lib.align.procrustes import apply_map, procrustes
from xsent_lib.align.refinement import RefinementResult, mutual_nn_dictionary, refine
from xsent_lib.align.toy import PlantedAlignment, figure_4_1_toy, random_orthogonal
from xsent_lib.text.tokenizers import word_tokens
from xsent_lib.eval.crosslingual import word_translation

RETRIEVAL_METHODS = ("nn", "isf", "csls")
WordPairs = Iterable[tuple[str, str]]


# -- embedding spaces --------------------------------------------------------------------------------------

def center_and_normalize(vectors: np.ndarray, *, center: bool = True) -> np.ndarray:
    """Unit-length rows, then (``center``) subtract the mean and renormalise: float32 ``(n, d)``.

    The thesis does not preprocess (MUSE's code defaults to none); on our small-corpus vectors the
    mean vector is large and shared by all words, and removing it makes cosines (and so NN, CSLS and
    the criterion) compare what differs between words. Later MUSE versions offer the same
    ``renorm,center,renorm`` option.
    Book: chapter 5 (Word translation without parallel data).
    """
    x = np.asarray(vectors)
    if x.ndim != 2 or x.shape[0] < 2 or not np.issubdtype(x.dtype, np.floating):
        raise ValueError(f"vectors must be a float (n_words >= 2, dim) matrix, got shape {x.shape} {x.dtype}.")
    x = l2_normalize(x)
    return l2_normalize(x - x.mean(axis=0)) if center else x


@dataclass
class LanguageSpace:
    """One language's word vectors: words in frequency order, preprocessed float32 vectors, word -> row.

    Book: chapter 5 (Word translation without parallel data).
    """

    lang: str
    words: list[str]
    vectors: np.ndarray
    word2id: dict[str, int] = field(repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.words) != len(self.vectors):
            raise ValueError(f"{self.lang}: {len(self.words)} words but {len(self.vectors)} vectors.")
        if not self.word2id:
            self.word2id = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    @property
    def dim(self) -> int:
        """Vector dimension. Book: chapter 5 (Word translation without parallel data)."""
        return int(self.vectors.shape[1])


def make_space(lang: str, words: Sequence[str], vectors: np.ndarray, *, max_vocab: int | None = None,
               center: bool = True) -> LanguageSpace:
    """Keep the ``max_vocab`` most frequent rows and preprocess them with :func:`center_and_normalize`.

    Book: chapter 5 (Word translation without parallel data).
    """
    if max_vocab is not None and max_vocab < 2:
        raise ValueError(f"max_vocab must be >= 2 or None, got {max_vocab}.")
    n = len(words) if max_vocab is None else min(len(words), max_vocab)
    return LanguageSpace(lang, list(words[:n]), center_and_normalize(np.asarray(vectors)[:n], center=center))


def language_seed(lang: str, seed: int = 0) -> int:
    """A gensim seed of its own for each language: ``seed + crc32(lang) % 10000``.

    gensim draws the starting vectors row by row in frequency order from one seeded generator, so
    two languages trained with the same seed would start their rank-``i`` words from the same random
    vector, a small spurious "translation" signal between unrelated words that survives training
    for rare words. Distinct seeds remove it.
    Book: chapter 5 (Word translation without parallel data).
    """
    return int(seed) + zlib.crc32(lang.encode("utf-8")) % 10_000


def real_space(lang: str, *, dim: int = 100, max_vocab: int | None = 50_000, seed: int | None = None,
               epochs: int = 5, sources: Sequence[tuple[str, str]] | None = None,
               cache_dir: str | os.PathLike[str] | None = None) -> LanguageSpace:
    """Skip-gram vectors of ``lang`` on its cached monolingual text (trained once, then loaded), as a space.

    Uses :func:`xsent_lib.data.wordvecs.train_wordvecs` with ``workers=1`` (bit-reproducible) and, by
    default, the gensim seed :func:`language_seed` of the language. MUSE uses 300-d fastText on
    Wikipedia; with 0.5-4M tokens per language we default to 100 dimensions, which train three times
    faster (the book profile's choice; the thesis value is 300).
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.wordvecs import train_wordvecs

    seed = language_seed(lang) if seed is None else seed
    wv = train_wordvecs(lang, sources=sources, dim=dim, epochs=epochs, seed=seed, cache_dir=cache_dir)
    return make_space(lang, wv.words, wv.vectors, max_vocab=max_vocab)


def synthetic_space(world, lang: str, *, n_sentences: int = 20_000, dim: int = 32, seed: int = 0,
                    epochs: int = 5, min_count: int = 3, cache_dir: str | os.PathLike[str] | None = None
                    ) -> LanguageSpace:
    """Skip-gram vectors trained on ``n_sentences`` monolingual sentences of a synthetic-world language.

    The corpora of two languages are independent draws (comparable, not parallel). Sub-sampling is
    set to 1e-3 (the text is tiny, gensim's 1e-4 default would discard most tokens).
    Book: chapter 5 (Word translation without parallel data).
    """
    return sentences_space(lang, world.sentences(n_sentences, lang), dim=dim, seed=seed, epochs=epochs,
                           min_count=min_count, sample=1e-3, cache_dir=cache_dir)


def sentences_space(lang: str, sentences: Sequence[str], *, dim: int = 100, seed: int = 0, epochs: int = 5,
                    min_count: int = 5, sample: float = 1e-4, max_vocab: int | None = None,
                    cache_dir: str | os.PathLike[str] | None = None) -> LanguageSpace:
    """Skip-gram vectors on the given ``sentences`` (cached by their text and the parameters), as a space.

    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.wordvecs import train_wordvecs

    wv = train_wordvecs(lang, sentences=sentences, dim=dim, epochs=epochs, min_count=min_count, sample=sample,
                        seed=seed, cache_dir=cache_dir)
    return make_space(lang, wv.words, wv.vectors, max_vocab=max_vocab)


# -- dictionaries and settings -----------------------------------------------------------------------------

@dataclass
class WordTranslationSetting:
    """Source and target spaces, training pairs (the seed dictionary) and test pairs, as row-index arrays.

    ``train`` and ``test`` are ``(n, 2)`` int64 ``[source row, target row]`` with no source word in both.
    ``coverage`` records how much of the dictionary the vocabularies kept.
    Book: chapter 5 (Word translation without parallel data).
    """

    src: LanguageSpace
    tgt: LanguageSpace
    train: np.ndarray
    test: np.ndarray
    dictionary: str
    coverage: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``"<src>-<tgt>"``. Book: chapter 5 (Word translation without parallel data)."""
        return f"{self.src.lang}-{self.tgt.lang}"


def _first_source_words(pairs: np.ndarray, n_words: int | None, how: str, seed: int) -> np.ndarray:
    """Keep the pairs of ``n_words`` source words: the most frequent (lowest rows) or a seeded sample."""
    words = np.unique(pairs[:, 0])
    if n_words is None or len(words) <= n_words:
        return pairs
    chosen = words[:n_words] if how == "frequent" else np.random.default_rng(seed).choice(words, n_words, False)
    return pairs[np.isin(pairs[:, 0], chosen)]


def make_setting(src: LanguageSpace, tgt: LanguageSpace, train_pairs: WordPairs, test_pairs: WordPairs, *,
                 dictionary: str, n_train: int | None = 5000, n_test: int | None = 1500,
                 seed: int = 0) -> WordTranslationSetting:
    """Look word pairs up in both vocabularies and build a setting MUSE-style.

    Training keeps the ``n_train`` most frequent source words with all their translations (MUSE's
    ``0-5000`` dictionaries); test keeps ``n_test`` source words drawn at random with ``seed`` when there
    are more. Source words that are also test words are removed from training.
    Book: chapter 5 (Word translation without parallel data).
    """
    train = lookup_pairs(train_pairs, src.word2id, tgt.word2id)
    test = lookup_pairs(test_pairs, src.word2id, tgt.word2id)
    test_pairs_idx = _first_source_words(test.pairs, n_test, "sample", seed)
    if len(test_pairs_idx) == 0:
        raise ValueError(f"no test pair of {dictionary} has both words in the vocabularies "
                         f"({len(src)} {src.lang} / {len(tgt)} {tgt.lang} words): use larger vocabularies.")
    train_idx = train.pairs[~np.isin(train.pairs[:, 0], test_pairs_idx[:, 0])]
    train_idx = _first_source_words(train_idx, n_train, "frequent", seed)
    if len(train_idx) < 2:
        raise ValueError(f"{dictionary} leaves fewer than 2 training pairs in the vocabularies.")
    coverage = {"train_pairs_in": train.n_input, "train_pairs": int(len(train_idx)),
                "train_source_words": int(np.unique(train_idx[:, 0]).size),
                "test_pairs_in": test.n_input, "test_pairs": int(len(test_pairs_idx)),
                "test_source_words": int(np.unique(test_pairs_idx[:, 0]).size),
                "src_vocab": len(src), "tgt_vocab": len(tgt)}
    return WordTranslationSetting(src, tgt, train_idx, test_pairs_idx, dictionary, coverage)


def freedict_pairs(src_lang: str, tgt_lang: str, cache_dir: str | os.PathLike[str] | None = None
                   ) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str]:
    """FreeDict train and test word pairs for ``src_lang -> tgt_lang``: ``(train, test, description)``.

    Uses ``freedict-<src>-<tgt>`` when it is cached; otherwise flips ``freedict-<tgt>-<src>`` (its test
    words become the targets of the flipped test pairs; the setting builder then drops every training
    pair whose source word is a test source word, so the split stays disjoint).
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.corpora import load_dictionary

    def pairs(name: str, split: str, flip: bool) -> list[tuple[str, str]]:
        d = load_dictionary(name, split, cache_dir=cache_dir)
        return list(zip(d.target, d.source)) if flip else list(zip(d.source, d.target))

    direct, reverse = f"freedict-{src_lang}-{tgt_lang}", f"freedict-{tgt_lang}-{src_lang}"
    try:
        return pairs(direct, "train", False), pairs(direct, "test", False), direct
    except (FileNotFoundError, KeyError, ValueError):
        pass
    try:
        return pairs(reverse, "train", True), pairs(reverse, "test", True), f"{reverse} (flipped)"
    except (FileNotFoundError, KeyError, ValueError) as exc:
        raise FileNotFoundError(f"neither {direct} nor {reverse} is cached: run `xsent-data fetch {direct}` "
                                f"(or {reverse}).") from exc


def missing_real_data(langs: Iterable[str], pairs: Iterable[tuple[str, str]],
                      cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Datasets the real-data path of chapter 5 needs and the cache lacks (empty: everything is there).

    A language needs every dataset of its default monolingual text; a pair needs its FreeDict
    dictionary in either direction.
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.cache import cache_status
    from xsent_lib.data.corpora.monolingual import MONOLINGUAL_SOURCES

    _, entries, _ = cache_status(cache_dir)
    ready = {e.name for e in entries if e.ready}
    missing = []
    for lang in langs:
        if lang not in MONOLINGUAL_SOURCES:
            missing.append(f"monolingual text for {lang!r}")
            continue
        missing += [name for name, _ in MONOLINGUAL_SOURCES[lang] if name not in ready]
    for s, t in pairs:
        if f"freedict-{s}-{t}" not in ready and f"freedict-{t}-{s}" not in ready:
            missing.append(f"freedict-{s}-{t}")
    return sorted(set(missing))


# -- maps and their evaluation -----------------------------------------------------------------------------

def supervised_map(setting: WordTranslationSetting) -> np.ndarray:
    """Orthogonal Procrustes on the setting's training pairs (the paper's supervised baseline, eq. 4.2).

    Book: chapter 5 (Word translation without parallel data).
    """
    s = setting
    return procrustes(s.src.vectors[s.train[:, 0]], s.tgt.vectors[s.train[:, 1]])


def evaluate_map(setting: WordTranslationSetting, W: np.ndarray, methods: tuple[str, ...] = RETRIEVAL_METHODS,
                 ks: tuple[int, ...] = (1, 5, 10)) -> dict:
    """P@k (percent) of the test source words against the whole target vocabulary, per retrieval method.

    Book: chapter 5 (Word translation without parallel data).
    """
    return word_translation(apply_map(setting.src.vectors, W), setting.tgt.vectors, setting.test, methods, ks)


def criterion_of(setting: WordTranslationSetting, W: np.ndarray, n_words: int = 10_000,
                 vocab: int | None = None) -> float:
    """The unsupervised validation criterion of map ``W`` on a setting (no dictionary involved).

    ``vocab`` restricts both spaces to their most frequent words first (as ``align_vocab`` does in
    :func:`unsupervised_align`), so the CSLS neighbourhoods are those the pipeline saw.
    Book: chapter 5 (Word translation without parallel data).
    """
    return unsupervised_criterion(apply_map(setting.src.vectors[:vocab], W), setting.tgt.vectors[:vocab],
                                  n_words=n_words)


# -- the unsupervised pipeline -----------------------------------------------------------------------------

@dataclass
class AdversarialRun:
    """One adversarial training run: the map kept (best criterion), and per epoch the losses and criterion.

    ``history`` rows hold ``epoch``, ``dis_loss``, ``map_loss``, ``criterion``, ``lr`` and, when a
    monitor was given, what it returned (e.g. the test P@1 for Figure 4.2; never used for selection).
    Book: chapter 5 (Word translation without parallel data).
    """

    W: np.ndarray
    best_epoch: int
    best_criterion: float
    history: list[dict]


def run_adversarial(src: np.ndarray, tgt: np.ndarray, config: AdversarialConfig, *, seed: int,
                    device: str | torch.device = "cpu", init: np.ndarray | None = None,
                    monitor: Callable[[np.ndarray], dict] | None = None) -> AdversarialRun:
    """Adversarial training with :class:`AdversarialAligner`'s steps and schedule, watched after every epoch.

    The same loop as :meth:`AdversarialAligner.fit` (``dis_steps`` discriminator steps then one mapping
    step with orthogonalisation; after each epoch the criterion, best-map bookkeeping and
    :func:`scheduled_lr`), plus a starting map ``init`` (default the identity) and an optional
    ``monitor(W)`` whose result is stored in the epoch's record.
    Book: chapter 5 (Word translation without parallel data).
    """
    aligner = AdversarialAligner(src, tgt, config, seed=seed, device=device)
    if init is not None:
        init = np.asarray(init, dtype=np.float32)
        if init.shape != aligner.W.shape:
            raise ValueError(f"init must have shape {aligner.W.shape}, got {init.shape}.")
        with torch.no_grad():
            aligner.mapping.weight.copy_(torch.from_numpy(init))
    n_rounds = max(1, config.epoch_size // config.batch_size)
    lr, previous = config.lr, -np.inf
    best = (-1, -np.inf, aligner.W)
    history = []
    for epoch in range(config.n_epochs):
        dis: list[float] = []
        map_losses: list[float] = []
        for _ in range(n_rounds):
            dis += [aligner.discriminator_step() for _ in range(config.dis_steps)]
            map_losses.append(aligner.mapping_step())
        W = aligner.W
        record = {"epoch": epoch, "dis_loss": float(np.mean(dis)), "map_loss": float(np.mean(map_losses)),
                  "criterion": aligner.criterion(), "lr": lr}
        if monitor is not None:
            record.update(monitor(W))
        history.append(record)
        if record["criterion"] > best[1]:
            best = (epoch, record["criterion"], W)
        lr, previous = scheduled_lr(lr, record["criterion"], previous, config), record["criterion"]
        for opt in (aligner.map_optimizer, aligner.dis_optimizer):
            for group in opt.param_groups:
                group["lr"] = lr
    return AdversarialRun(best[2], best[0], float(best[1]), history)


@dataclass
class UnsupervisedResult:
    """The unsupervised pipeline's outcome: the selected refined map and what every restart did.

    ``W`` is the refined map of the selected restart, ``W_adversarial`` its adversarial map (the
    "Adv" rows of Table 4.1). ``restarts`` has one record per restart (seed, starting map, adversarial
    and refined criteria, refinement dictionary size, and, when ``setting`` had test pairs and
    ``score_restarts`` was on, their test P@1 for display: selection never looks at it).
    Book: chapter 5 (Word translation without parallel data).
    """

    W: np.ndarray
    W_adversarial: np.ndarray
    chosen: int
    restarts: list[dict]
    adversarial: AdversarialRun
    refinement: RefinementResult


@dataclass
class _CPUThreads:
    """Run small tensor steps on one CPU thread (syncing threads costs more than it saves on 64-row batches)."""

    device: torch.device

    def __enter__(self) -> None:
        self.saved = torch.get_num_threads()
        if self.device.type == "cpu":
            torch.set_num_threads(1)

    def __exit__(self, *exc) -> None:
        torch.set_num_threads(self.saved)


def starting_map(kind: str, dim: int, seed: int) -> np.ndarray:
    """The adversarial stage's starting map: ``"identity"`` (MUSE's code) or a Haar-``"random"`` rotation.

    Book: chapter 5 (Word translation without parallel data).
    """
    if kind == "identity":
        return np.eye(dim, dtype=np.float32)
    if kind == "random":
        return random_orthogonal(dim, np.random.default_rng(seed), proper=True).astype(np.float32)
    raise ValueError(f"starting map must be 'identity' or 'random', got {kind!r}.")


def unsupervised_align(setting: WordTranslationSetting, config: AdversarialConfig, *, n_restarts: int = 3,
                       seed: int = 0, device: str | torch.device = "cpu", init: str = "identity",
                       refine_iters: int = 5, max_rank: int = 15_000, align_vocab: int | None = None,
                       monitor_every_epoch: bool = False, score_restarts: bool = True) -> UnsupervisedResult:
    """Adversarial training from ``n_restarts`` seeds, each refined, and the restart with the best criterion kept.

    Restart ``r`` uses seed ``seed + r``; with ``init="random"`` every restart after the first starts
    from its own random rotation (the first always starts at the identity). Each restart's
    adversarial map is refined (:func:`~xsent_lib.align.refinement.refine`: mutual CSLS neighbours
    among the ``max_rank`` most frequent words, Procrustes, ``refine_iters`` times) and restarts are
    ranked by the refined map's unsupervised criterion, which needs no dictionary. The thesis selects
    epochs and hyper-parameters with the same criterion; ranking restarts after refinement is our
    choice (a refined wrong map scores far below a refined right one, so the ranking is sharper).
    ``align_vocab`` (a frequency cut-off) gives the adversarial game, the refinement and the criterion
    only the most frequent words of each side, which also makes every criterion evaluation cheaper;
    the maps are then evaluated against the whole target vocabulary. ``monitor_every_epoch`` adds the
    test P@1 (NN and CSLS) to every epoch record (Figure 4.2).
    Book: chapter 5 (Word translation without parallel data).
    """
    if n_restarts < 1:
        raise ValueError(f"n_restarts must be >= 1, got {n_restarts}.")
    if align_vocab is not None and align_vocab < 2 * config.k_neighbors:
        raise ValueError(f"align_vocab={align_vocab} is too small for k_neighbors={config.k_neighbors}.")
    dev = torch.device(device) if not isinstance(device, torch.device) else device
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]

    def test_p1(W: np.ndarray) -> dict:
        res = evaluate_map(setting, W, methods=("nn", "csls"), ks=(1,))
        return {"p@1 nn": res["nn"]["p@1"], "p@1 csls": res["csls"]["p@1"]}

    runs, records = [], []
    with _CPUThreads(dev):
        for r in range(n_restarts):
            start = starting_map("identity" if r == 0 else init, setting.src.dim, seed + r)
            adv = run_adversarial(src, tgt, config, seed=seed + r, device=dev, init=start,
                                  monitor=test_p1 if monitor_every_epoch else None)
            ref = refine(src, tgt, adv.W, n_iter=refine_iters, max_rank=max_rank,
                         criterion_words=config.criterion_words, k_neighbors=config.k_neighbors)
            record = {"restart": r, "seed": seed + r, "start": "identity" if r == 0 else init,
                      "best_epoch": adv.best_epoch, "adv_criterion": adv.best_criterion,
                      "refined_criterion": max(h["criterion"] for h in ref.history),
                      "refine_pairs": max(h["n_pairs"] for h in ref.history)}
            if score_restarts:
                record.update({f"adv {k}": v for k, v in test_p1(adv.W).items()})
                record.update({f"refined {k}": v for k, v in test_p1(ref.W).items()})
            runs.append((adv, ref))
            records.append(record)
    chosen = int(np.argmax([rec["refined_criterion"] for rec in records]))
    for rec in records:
        rec["chosen"] = rec["restart"] == chosen
    adv, ref = runs[chosen]
    return UnsupervisedResult(ref.W, adv.W, chosen, records, adv, ref)


# -- hubness -----------------------------------------------------------------------------------------------

def top1_targets(mapped_src: np.ndarray, tgt: np.ndarray, method: str, *, queries: np.ndarray | None = None,
                 k_csls: int = 10, beta: float = 30.0) -> np.ndarray:
    """The target row each query retrieves first with ``nn``, ``isf`` or ``csls`` (all targets searched).

    Book: chapter 5 (Word translation without parallel data).
    """
    n = np.asarray(mapped_src).shape[0]
    rows = np.arange(n) if queries is None else np.asarray(queries)
    if method == "nn":
        return knn(np.asarray(mapped_src)[rows], tgt, 1)[1][:, 0]
    if method == "csls":
        return csls_knn(mapped_src, tgt, k_csls, 1, queries=rows)[1][:, 0]
    if method == "isf":
        return inverted_softmax_knn(mapped_src, tgt, beta, 1, queries=rows)[1][:, 0]
    raise ValueError(f"method must be one of {RETRIEVAL_METHODS}, got {method!r}.")


def hub_counts(top1: np.ndarray, n_targets: int) -> np.ndarray:
    """How many queries retrieve each target first (the k-occurrence N_1 of Radovanovic et al.).

    A hub is a target that is many queries' nearest neighbour; with no hubness every count would be
    close to ``n_queries / n_targets``.
    Book: chapter 5 (Word translation without parallel data).
    """
    top1 = np.asarray(top1)
    if top1.ndim != 1 or not np.issubdtype(top1.dtype, np.integer):
        raise ValueError(f"top1 must be a 1-D integer array of target rows, got {top1.shape} {top1.dtype}.")
    if top1.size and (top1.min() < 0 or top1.max() >= n_targets):
        raise ValueError(f"top1 holds rows outside [0, {n_targets}).")
    return np.bincount(top1, minlength=n_targets)


def hubness_summary(counts: np.ndarray, words: Sequence[str], n_top: int = 5) -> dict:
    """A hubness profile: share of targets never retrieved, the largest counts, skewness, the top hubs.

    Book: chapter 5 (Word translation without parallel data).
    """
    counts = np.asarray(counts)
    if counts.ndim != 1 or len(counts) != len(words):
        raise ValueError(f"counts ({counts.shape}) must have one entry per word ({len(words)}).")
    c = counts.astype(np.float64)
    sd = c.std()
    order = np.argsort(-counts, kind="stable")[:n_top]
    return {"queries": int(counts.sum()), "targets": int(len(counts)),
            "never retrieved (%)": 100.0 * float((counts == 0).mean()),
            "retrieved by the top 1% of targets (%)": 100.0 * float(
                np.sort(counts)[::-1][: max(1, len(counts) // 100)].sum() / max(1, counts.sum())),
            "max count": int(counts.max()), "skewness": float(((c - c.mean()) ** 3).mean() / sd ** 3) if sd else 0.0,
            "top hubs": ", ".join(f"{words[i]} ({counts[i]})" for i in order)}


# -- sentences: idf-weighted bags of mapped words, word-by-word translation -----------------------------------

def _token_matrix(sentences: Sequence[str], space: LanguageSpace) -> sparse.csr_matrix:
    """Sentence x vocabulary counts of the in-vocabulary word tokens (``tables.word_tokens``)."""
    rows, cols = [], []
    lookup = space.word2id.get
    for i, sentence in enumerate(sentences):
        ids = [j for j in map(lookup, word_tokens(sentence)) if j is not None]
        rows += [i] * len(ids)
        cols += ids
    data = np.ones(len(rows), dtype=np.float32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(sentences), len(space)))


def idf_weights(sentences: Sequence[str], space: LanguageSpace) -> np.ndarray:
    """``log(N / df(w))`` for every vocabulary word over ``sentences`` (words never seen get ``log N``).

    The thesis takes idf from 300k other Europarl sentences; pass sentences that are not evaluated.
    Book: chapter 5 (Word translation without parallel data).
    """
    if not len(sentences):
        raise ValueError("idf needs at least one sentence.")
    counts = _token_matrix(sentences, space)
    df = np.asarray((counts > 0).sum(axis=0)).ravel()
    return np.log(len(sentences) / np.maximum(df, 1)).astype(np.float32)


def bag_of_words(sentences: Sequence[str], space: LanguageSpace, idf: np.ndarray | None = None,
                 W: np.ndarray | None = None) -> np.ndarray:
    """Sentence vectors: the (idf-weighted) mean of their words' vectors, mapped by ``W`` when given.

    One sparse-dense product for all sentences. A sentence with no known word gets the zero vector
    (it can match nothing). The map is linear, so averaging then mapping equals mapping each word.
    Book: chapter 5 (Word translation without parallel data).
    """
    counts = _token_matrix(sentences, space)
    if idf is not None:
        idf = np.asarray(idf, dtype=np.float32)
        if idf.shape != (len(space),):
            raise ValueError(f"idf must have one weight per word ({len(space)}), got shape {idf.shape}.")
        counts = counts @ sparse.diags(idf)
    totals = np.asarray(counts.sum(axis=1)).ravel()
    emb = np.asarray(counts @ space.vectors) / np.maximum(totals, 1e-12)[:, None]
    return (apply_map(emb, W) if W is not None else emb).astype(np.float32)


def translation_lexicon(src: LanguageSpace, tgt: LanguageSpace, W: np.ndarray, method: str = "csls",
                        k_csls: int = 10) -> np.ndarray:
    """The target row chosen for every source word (NN or CSLS over the whole target vocabulary).

    Book: chapter 5 (Word translation without parallel data).
    """
    if method not in ("nn", "csls"):
        raise ValueError(f"method must be 'nn' or 'csls', got {method!r}.")
    return top1_targets(apply_map(src.vectors, W), tgt.vectors, method, k_csls=k_csls)


def fully_known(sentences: Sequence[str], space: LanguageSpace) -> np.ndarray:
    """Whether every word token of each sentence is in the vocabulary (and the sentence has one).

    Book: chapter 5 (Word translation without parallel data).
    """
    return np.array([bool(toks) and all(t in space.word2id for t in toks)
                     for toks in map(word_tokens, sentences)], dtype=bool)


def word_by_word(sentences: Sequence[str], src: LanguageSpace, tgt: LanguageSpace,
                 lexicon: np.ndarray) -> list[str]:
    """Translate each word token through ``lexicon`` (a target row per source row); unknown words are copied.

    Output is lower-cased word tokens joined by spaces, as in the thesis' Esperanto experiment.
    Book: chapter 5 (Word translation without parallel data).
    """
    lexicon = np.asarray(lexicon)
    if lexicon.shape != (len(src),):
        raise ValueError(f"lexicon must give one target row per source word ({len(src)}), got {lexicon.shape}.")
    out_words = np.asarray(tgt.words, dtype=object)[lexicon]
    lookup = src.word2id.get
    return [" ".join(out_words[i] if (i := lookup(t)) is not None else t for t in word_tokens(s))
            for s in sentences]


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus BLEU (sacrebleu, no further tokenisation: both sides are already lower-cased word tokens).

    Book: chapter 5 (Word translation without parallel data).
    """
    import sacrebleu

    if len(hypotheses) != len(references) or not len(hypotheses):
        raise ValueError(f"need as many hypotheses as references (>0), got {len(hypotheses)} and {len(references)}.")
    refs = [" ".join(word_tokens(r)) for r in references]
    return float(sacrebleu.corpus_bleu(list(hypotheses), [refs], tokenize="none").score)


# -- Figure 4.1: the method on a 2-D toy ------------------------------------------------------------------------

def rotation_angle(W: np.ndarray) -> float:
    """The angle in degrees of a 2-D map's rotation part (``atan2(W[1,0], W[0,0])``).

    Book: chapter 5 (Word translation without parallel data).
    """
    W = np.asarray(W)
    if W.shape != (2, 2):
        raise ValueError(f"rotation_angle needs a 2x2 map, got shape {W.shape}.")
    return float(np.degrees(np.arctan2(W[1, 0], W[0, 0])))


@dataclass
class ToyRun:
    """Every step of the method on the 2-D toy, for Figure 4.1.

    ``data`` holds the clouds and the planted rotation; ``W_adversarial`` / ``W_refined`` the maps;
    ``discriminator_batch`` the source rows of one discriminator batch (the frequent words it is fed);
    ``anchors`` the mutual-CSLS pairs of the first refinement step; ``top1`` the target each source
    point retrieves with ``nn`` and ``csls`` after refinement; ``restarts`` one record per restart.
    Book: chapter 5 (Word translation without parallel data).
    """

    data: PlantedAlignment
    W_adversarial: np.ndarray
    W_refined: np.ndarray
    discriminator_batch: np.ndarray
    anchors: np.ndarray
    top1: dict[str, np.ndarray]
    restarts: list[dict]
    chosen: int


def toy_run(*, n_points: int = 300, angle_degrees: float = 60.0, noise: float = 0.05, n_restarts: int = 6,
            config: AdversarialConfig | None = None, seed: int = 0) -> ToyRun:
    """Run adversarial training, refinement and CSLS retrieval on :func:`figure_4_1_toy` clouds.

    Restarts (seed ``seed + r``, the first from the identity, the others from random rotations) are
    ranked by the refined map's unsupervised criterion, as in :func:`unsupervised_align`. The default
    ``config`` is a small discriminator (64 units) fed with every point, 4 epochs of 100 rounds.
    Book: chapter 5 (Word translation without parallel data).
    """
    data = figure_4_1_toy(n_points, angle_degrees=angle_degrees, noise=noise, seed=seed)
    cfg = config or AdversarialConfig(dis_hidden=64, batch_size=32, dis_steps=3, epoch_size=3200, n_epochs=4,
                                      most_frequent=n_points, criterion_words=n_points)
    runs, records = [], []
    with _CPUThreads(torch.device("cpu")):
        for r in range(n_restarts):
            start = starting_map("identity" if r == 0 else "random", 2, seed + r)
            adv = run_adversarial(data.src, data.tgt, cfg, seed=seed + r, device="cpu", init=start)
            ref = refine(data.src, data.tgt, adv.W, n_iter=3, max_rank=n_points, criterion_words=n_points,
                         k_neighbors=cfg.k_neighbors)
            crit = max(h["criterion"] for h in ref.history)
            error = (rotation_angle(ref.W) - angle_degrees + 180.0) % 360.0 - 180.0
            records.append({"restart": r, "start angle": rotation_angle(start),
                            "adversarial angle": rotation_angle(adv.W), "refined angle": rotation_angle(ref.W),
                            "angle error": abs(error), "refined_criterion": crit})
            runs.append((adv, ref))
    chosen = int(np.argmax([rec["refined_criterion"] for rec in records]))
    for rec in records:
        rec["chosen"] = rec["restart"] == chosen
    adv, ref = runs[chosen]
    rng = np.random.default_rng(seed)
    batch = rng.integers(0, min(cfg.most_frequent, n_points), cfg.batch_size)
    anchors = mutual_nn_dictionary(apply_map(data.src, adv.W), data.tgt, max_rank=n_points,
                                   k_neighbors=cfg.k_neighbors)
    mapped = apply_map(data.src, ref.W)
    top1 = {m: top1_targets(mapped, data.tgt, m, k_csls=cfg.k_neighbors) for m in ("nn", "csls")}
    return ToyRun(data, adv.W, ref.W, batch, anchors, top1, records, chosen)


# -- Figure 4.3: English-English alignment by word frequency ---------------------------------------------------

def shared_identity_pairs(a: LanguageSpace, b: LanguageSpace) -> np.ndarray:
    """Rows ``(i, j)`` with ``a.words[i] == b.words[j]``, sorted by the row in ``a`` (its frequency rank).

    Book: chapter 5 (Word translation without parallel data).
    """
    pairs = [(i, b.word2id[w]) for i, w in enumerate(a.words) if w in b.word2id]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def _rank(n: int) -> str:
    """``5000`` -> ``"5k"``, ``2500`` -> ``"2.5k"``, ``300`` -> ``"300"``."""
    return f"{n / 1000:g}k" if n >= 1000 else str(int(n))


def accuracy_by_frequency(a: LanguageSpace, b: LanguageSpace, *, bucket_edges: Sequence[int],
                          train_fraction: float = 0.5, seed: int = 0,
                          methods: tuple[str, ...] = ("nn", "csls"), k_csls: int = 10) -> dict:
    """Align two spaces of the same language and report P@1 per frequency bucket (identity is correct).

    The words both spaces share are split at random (``seed``) into a training half, which fits
    orthogonal Procrustes on identity pairs, and a test half, whose words are retrieved among all of
    ``b`` and grouped by their rank in ``a`` into ``[edge_k, edge_{k+1})`` buckets. The thesis aligns
    these spaces without supervision; a supervised map isolates how alignable the spaces are from how
    good the aligner is. Returns ``{"buckets": [labels], method: [P@1 per bucket], "n": [counts]}``.
    Book: chapter 5 (Word translation without parallel data).
    """
    edges = np.asarray(bucket_edges)
    if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError(f"bucket_edges must be increasing with at least 2 entries, got {bucket_edges}.")
    if a.dim != b.dim:
        raise ValueError(f"the two spaces must have the same dimension, got {a.dim} and {b.dim}.")
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}.")
    pairs = shared_identity_pairs(a, b)
    pairs = pairs[pairs[:, 0] < edges[-1]]
    in_train = np.random.default_rng(seed).random(len(pairs)) < train_fraction
    train, test = pairs[in_train], pairs[~in_train]
    if len(train) < a.dim or len(test) == 0:
        raise ValueError(f"only {len(pairs)} shared words below rank {edges[-1]}: too few to fit and test.")
    W = procrustes(a.vectors[train[:, 0]], b.vectors[train[:, 1]])
    mapped = apply_map(a.vectors, W)
    bucket = np.searchsorted(edges, test[:, 0], side="right") - 1
    out: dict = {"buckets": [f"{_rank(lo)}-{_rank(hi)}" for lo, hi in zip(edges[:-1], edges[1:])],
                 "n": np.bincount(bucket, minlength=len(edges) - 1).tolist()}
    for m in methods:
        hit = top1_targets(mapped, b.vectors, m, queries=test[:, 0], k_csls=k_csls) == test[:, 1]
        sums = np.bincount(bucket, weights=hit, minlength=len(edges) - 1)
        out[m] = (100.0 * sums / np.maximum(out["n"], 1)).tolist()
    return out


def identical_string_pairs(src: LanguageSpace, tgt: LanguageSpace, max_rank: int | None = None) -> np.ndarray:
    """Rows ``(i, j)`` of words spelled the same in both vocabularies (MUSE's ``identical_char`` seed).

    A weak, free supervision signal for languages that share a script (names, loanwords, false
    friends included); useless across scripts. ``max_rank`` keeps words among both vocabularies'
    ``max_rank`` most frequent rows.
    Book: chapter 5 (Word translation without parallel data).
    """
    limit = max_rank or max(len(src), len(tgt))
    pairs = [(i, j) for i, w in enumerate(src.words[:limit]) if (j := tgt.word2id.get(w)) is not None and j < limit]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def rotate_every_plane(W: np.ndarray, degrees: float, seed: int = 0) -> np.ndarray:
    """``R W`` where the rotation ``R`` turns every vector by ``degrees`` (random planes, seeded).

    ``R = Q B Q^T`` with ``B`` block-diagonal 2x2 rotations by ``degrees`` and ``Q`` random orthogonal,
    so no direction stays close to where it was (an odd dimension leaves one axis fixed).
    Book: chapter 5 (Word translation without parallel data).
    """
    W = np.asarray(W, dtype=np.float64)
    dim = W.shape[0]
    t = np.radians(degrees)
    block = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    B = np.eye(dim)
    for k in range(dim // 2):
        B[2 * k:2 * k + 2, 2 * k:2 * k + 2] = block
    Q = random_orthogonal(dim, np.random.default_rng(seed))
    return (Q @ B @ Q.T @ W).astype(np.float32)


def refinement_basin(setting: WordTranslationSetting, W: np.ndarray, angles: Sequence[float], *,
                     refine_iters: int = 2, max_rank: int = 10_000, align_vocab: int | None = 10_000,
                     criterion_words: int = 5_000, seed: int = 0) -> list[dict]:
    """How far from a good map refinement can start and still find it: one record per angle.

    Every plane of ``W`` (e.g. the supervised map) is turned by ``angle`` (:func:`rotate_every_plane`),
    then refined without any dictionary; the record holds test P@1 (CSLS) and the criterion before and
    after. This is the target the adversarial stage has to hit: a map inside this basin.
    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]
    out = []
    for angle in angles:
        start = rotate_every_plane(W, angle, seed)
        ref = refine(src, tgt, start, n_iter=refine_iters, max_rank=max_rank, criterion_words=criterion_words)
        p1 = [evaluate_map(setting, M, methods=("csls",), ks=(1,))["csls"]["p@1"] for M in (start, ref.W)]
        out.append({"angle": float(angle), "start p@1 csls": p1[0], "refined p@1 csls": p1[1],
                    "start criterion": ref.history[0]["criterion"],
                    "refined criterion": max(h["criterion"] for h in ref.history)})
    return out


def cbow_space(lang: str, sentences: Sequence[str], *, dim: int = 100, seed: int = 0, epochs: int = 5,
               min_count: int = 5, max_vocab: int | None = None) -> LanguageSpace:
    """CBOW vectors (gensim, one worker, seeded) on ``sentences``: Figure 4.3's "different model".

    Same settings as :func:`xsent_lib.data.wordvecs.train_wordvecs` except ``sg=0``. Not cached: CBOW
    trains about three times faster than skip-gram, a few seconds on a 1-2M-token text.
    Book: chapter 5 (Word translation without parallel data).
    """
    from gensim.models import Word2Vec

    corpus = [toks for toks in map(word_tokens, sentences) if toks]
    if not corpus:
        raise ValueError("the text holds no word tokens: nothing to train on.")
    model = Word2Vec(sentences=corpus, vector_size=dim, window=5, min_count=min_count, sg=0, negative=10,
                     sample=1e-4, epochs=epochs, seed=seed, workers=1)
    return make_space(lang, list(model.wv.index_to_key), np.asarray(model.wv.vectors), max_vocab=max_vocab)


def reverse_direction(setting: WordTranslationSetting, forward: UnsupervisedResult, *, refine_iters: int = 5,
                      max_rank: int = 15_000, align_vocab: int | None = None, criterion_words: int = 10_000
                      ) -> UnsupervisedResult:
    """The unsupervised map of the reverse direction from a forward run: transpose, then refine this way.

    An orthogonal map's inverse is its transpose, so the forward adversarial map already aligns the
    reverse direction; MUSE trains each direction separately, we reuse the forward adversarial stage
    to halve its cost and refine in the reverse direction (mutual neighbours and criterion from the
    new source side). ``setting`` is the reverse setting (its source is the forward target).
    Book: chapter 5 (Word translation without parallel data).
    """
    W_adv = np.ascontiguousarray(forward.W_adversarial.T)
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]
    ref = refine(src, tgt, W_adv, n_iter=refine_iters, max_rank=max_rank, criterion_words=criterion_words)
    records = [{"restart": forward.chosen, "start": "transposed forward map", "chosen": True,
                "refined_criterion": max(h["criterion"] for h in ref.history)}]
    return UnsupervisedResult(ref.W, W_adv, forward.chosen, records, forward.adversarial, ref)


def monitored_run(setting: WordTranslationSetting, config: AdversarialConfig, *, seed: int = 0,
                  refine_iters: int = 3, max_rank: int = 15_000, align_vocab: int | None = None,
                  device: str | torch.device = "cpu") -> list[dict]:
    """One unsupervised run with the test P@1 recorded after every adversarial epoch and refinement step.

    For Figure 4.2: each record has ``stage`` (``adversarial`` / ``refinement``), ``step`` (a running
    index), the unsupervised criterion and the test P@1 (NN and CSLS). Refinement follows
    :func:`~xsent_lib.align.refinement.refine` step by step (mutual CSLS dictionary, Procrustes),
    starting from the adversarial stage's selected map.
    Book: chapter 5 (Word translation without parallel data).
    """
    dev = torch.device(device) if not isinstance(device, torch.device) else device
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]

    def test_p1(W: np.ndarray) -> dict:
        res = evaluate_map(setting, W, methods=("nn", "csls"), ks=(1,))
        return {"p@1 nn": res["nn"]["p@1"], "p@1 csls": res["csls"]["p@1"]}

    with _CPUThreads(dev):
        adv = run_adversarial(src, tgt, config, seed=seed, device=dev, monitor=test_p1)
    records = [{"stage": "adversarial", **h} for h in adv.history]
    W = adv.W
    for it in range(1, refine_iters + 1):
        dico = mutual_nn_dictionary(apply_map(src, W), tgt, max_rank=max_rank, k_neighbors=config.k_neighbors)
        if len(dico) < 2:
            break
        W = procrustes(src[dico[:, 0]], tgt[dico[:, 1]])
        crit = unsupervised_criterion(apply_map(src, W), tgt, n_words=config.criterion_words,
                                      k_neighbors=config.k_neighbors)
        records.append({"stage": "refinement", "epoch": config.n_epochs - 1 + it, "criterion": crit,
                        "n_pairs": int(len(dico)), **test_p1(W)})
    for step, rec in enumerate(records):
        rec["step"] = step
    return records


# -- the chapter's settings, whatever the data ----------------------------------------------------------------

SYNTHETIC_PAIRS = (("en", "xa"), ("en", "xe"), ("en", "xb"), ("en", "xd"))


def fasttext_files(data_dir: str | os.PathLike[str] | None, pairs: Iterable[tuple[str, str]]) -> bool:
    """Whether ``data_dir`` holds MUSE's setting for every pair: ``wiki.<lang>.vec`` and both dictionaries.

    Expected layout: ``<data_dir>/wiki.<lang>.vec`` (fastText Wikipedia vectors) and
    ``<data_dir>/crosslingual/dictionaries/<src>-<tgt>.{0-5000,5000-6500}.txt`` in both directions.
    Book: chapter 5 (Word translation without parallel data).
    """
    if data_dir is None:
        return False
    from pathlib import Path

    root = Path(data_dir)
    need = [root / f"wiki.{lang}.vec" for p in pairs for lang in p]
    need += [root / "crosslingual" / "dictionaries" / f"{a}-{b}.{split}.txt" for s, t in pairs
             for a, b in ((s, t), (t, s)) for split in ("0-5000", "5000-6500")]
    return all(p.is_file() for p in need)


def build_settings(source: str, pairs: Sequence[tuple[str, str]], *, dim: int = 100, max_vocab: int | None = 20_000,
                   seed: int = 0, n_train: int | None = 5000, n_test: int | None = 1500, world=None,
                   n_sentences: int = 20_000, data_dir: str | os.PathLike[str] | None = None,
                   cache_dir: str | os.PathLike[str] | None = None) -> dict[str, WordTranslationSetting]:
    """Both directions of every pair as settings, keyed ``"src-tgt"``; each language's space is built once.

    ``source``: ``"real"`` (our skip-gram vectors on the cached text, FreeDict dictionaries),
    ``"synthetic"`` (vectors on ``world``'s sentences, gold lexicons) or ``"fasttext"`` (MUSE's own
    setting from ``data_dir``, see :func:`fasttext_files`: 300-d Wikipedia vectors, MUSE dictionaries
    trained on ``0-5000`` and tested on ``5000-6500``).
    Book: chapter 5 (Word translation without parallel data).
    """
    if source not in ("real", "synthetic", "fasttext"):
        raise ValueError(f"source must be 'real', 'synthetic' or 'fasttext', got {source!r}.")
    if source == "synthetic" and world is None:
        raise ValueError("source='synthetic' needs world=SyntheticWorld(...).")
    langs = list(dict.fromkeys(lang for p in pairs for lang in p))
    spaces: dict[str, LanguageSpace] = {}
    for lang in langs:
        if source == "real":
            spaces[lang] = real_space(lang, dim=dim, max_vocab=max_vocab, seed=language_seed(lang, seed),
                                      cache_dir=cache_dir)
        elif source == "synthetic":
            spaces[lang] = synthetic_space(world, lang, n_sentences=n_sentences, dim=dim,
                                           seed=language_seed(lang, seed), cache_dir=cache_dir)
        else:
            from pathlib import Path

            from xsent_lib.data.formats import load_vec

            wv = load_vec(Path(data_dir) / f"wiki.{lang}.vec", max_words=max_vocab)
            spaces[lang] = make_space(lang, wv.words, wv.vectors)
    out = {}
    for s, t in pairs:
        for a, b in ((s, t), (t, s)):
            if source == "real":
                train, test, name = freedict_pairs(a, b, cache_dir=cache_dir)
            elif source == "synthetic":
                lex = world.lexicon(a, b)
                train, test, name = lex.train, lex.test, f"synthetic gold lexicon {a}-{b}"
            else:
                from xsent_lib.data.formats import load_muse_dictionary

                tr = load_muse_dictionary(data_dir, a, b, "0-5000")
                te = load_muse_dictionary(data_dir, a, b, "5000-6500")
                train, test = list(zip(tr.source, tr.target)), list(zip(te.source, te.target))
                name = f"MUSE {a}-{b}"
            out[f"{a}-{b}"] = make_setting(spaces[a], spaces[b], train, test, dictionary=name, n_train=n_train,
                                           n_test=n_test, seed=seed)
    return out


# -- the paper's claims, checked on a run's numbers -----------------------------------------------------------

SUP_PREFIX = "Methods with cross-lingual supervision and fastText embeddings / "
UNS_PREFIX = "Methods without cross-lingual supervision and fastText embeddings / "
_EUROPEAN = ("en-es", "es-en", "en-fr", "fr-en", "en-de", "de-en")


def _need(table: Mapping, keys: Iterable[str], what: str) -> None:
    missing = [k for k in keys if k not in table]
    if missing:
        raise ValueError(f"{what} lacks {missing}; pass the table the chapter built (keys {sorted(table)[:6]}...).")


def _frequency_accuracy(series: Mapping, method: str) -> float:
    """Accuracy over all test words of the first series of a Figure 4.3 panel (buckets weighted by size)."""
    res = next(iter(series.values()))
    n = np.asarray(res["n"], dtype=float)
    return float(np.sum(n * np.asarray(res[method])) / max(n.sum(), 1.0))


def muse_claims(table_4_1: Mapping[str, Mapping[str, float]], hubness: Mapping[str, Mapping],
                table_4_3: Mapping[str, Mapping[str, float]], table_4_5: Mapping[str, Mapping[str, float]],
                agree: Mapping[str, bool], fig43: Mapping[str, Mapping], directions: Sequence[str], *,
                max_gap: float = 3.0, min_agreement: float = 0.75) -> list[dict]:
    """The thesis' claims of section 4.1, each checked on one run's numbers: ``{claim, paper, ours, holds}``.

    Inputs are the chapter's tables: ``table_4_1`` rows (``SUP_PREFIX``/``UNS_PREFIX`` + method) to
    ``{direction: P@1}``; ``hubness`` ``{"NN"|"CSLS": hubness_summary(...)}``; ``table_4_3`` and
    ``table_4_5`` as the chapter logs them; ``agree`` ``{direction: whether the criterion orders the
    maps as P@1 does}``; ``fig43`` ``{panel: {series: accuracy_by_frequency(...)}}``. ``holds`` is computed
    from these numbers (a strict improvement in *every* direction for the "beats" claims, a mean gap of
    at most ``max_gap`` points for the unsupervised-vs-supervised claim, agreement in at least
    ``min_agreement`` of the directions for the criterion); the paper's counts are read from the stored
    thesis Table 4.1.
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.results.paper import paper_table

    directions = list(directions)
    if not directions:
        raise ValueError("directions is empty; pass the setting names, e.g. ['en-fr', 'fr-en'].")
    rows = {k: SUP_PREFIX + k for k in ("Procrustes - NN", "Procrustes - CSLS")}
    rows |= {k: UNS_PREFIX + k for k in ("Adv - CSLS", "Adv - Refine - CSLS")}
    _need(table_4_1, rows.values(), "table_4_1")
    for row in rows.values():
        _need(table_4_1[row], directions, f"table_4_1[{row!r}]")
    _need(hubness, ("NN", "CSLS"), "hubness")
    sent_rows = {m: f"Methods with cross-lingual supervision / Procrustes - {m}" for m in ("NN", "CSLS")}
    _need(table_4_3, sent_rows.values(), "table_4_3")
    bleu_rows = [f"{d} - {m}" for d in ("Dictionary", "ours: Procrustes dictionary") for m in ("NN", "CSLS")]
    _need(table_4_5, bleu_rows, "table_4_5")
    if not agree:
        raise ValueError("agree is empty; pass {direction: bool} from the criterion-vs-P@1 table.")
    panels = ("(a) same corpus, other seed", "(d) other corpus and model")
    _need(fig43, panels, "fig43")

    p41 = paper_table("thesis", "table_4_1")

    def ours_better(better: str, worse: str) -> int:
        return int(sum(bool(table_4_1[rows[better]][d] > table_4_1[rows[worse]][d]) for d in directions))

    def paper_better(better: str, worse: str) -> str:
        return f"{int((p41.loc[rows[better]] > p41.loc[rows[worse]]).sum())}/{p41.shape[1]} directions"

    n = len(directions)
    b_csls = ours_better("Procrustes - CSLS", "Procrustes - NN")
    b_ref = ours_better("Adv - Refine - CSLS", "Adv - CSLS")
    gap = float(np.mean([table_4_1[rows["Procrustes - CSLS"]][d] - table_4_1[rows["Adv - Refine - CSLS"]][d]
                         for d in directions]))
    paper_gap = float((p41.loc[rows["Procrustes - CSLS"]] - p41.loc[rows["Adv - Refine - CSLS"]])[
        list(_EUROPEAN)].mean())
    h_nn, h_cs = hubness["NN"], hubness["CSLS"]
    s_nn, s_cs = table_4_3[sent_rows["NN"]], table_4_3[sent_rows["CSLS"]]
    u_nn, u_cs = table_4_5["Dictionary - NN"], table_4_5["Dictionary - CSLS"]
    p_nn, p_cs = table_4_5["ours: Procrustes dictionary - NN"], table_4_5["ours: Procrustes dictionary - CSLS"]
    n_agree = int(sum(bool(v) for v in agree.values()))
    acc_a, acc_d = (_frequency_accuracy(fig43[p], "csls") for p in panels)
    return [
        {"claim": "CSLS beats NN with Procrustes (Table 4.1)", "paper": paper_better("Procrustes - CSLS",
                                                                                     "Procrustes - NN"),
         "ours": f"{b_csls}/{n} directions", "holds": bool(b_csls == n)},
        {"claim": f"unsupervised (Adv-Refine-CSLS) within ~{max_gap:g} points of Procrustes-CSLS",
         "paper": f"mean gap {paper_gap:.1f} points (European pairs)", "ours": f"mean gap {gap:.1f} points",
         "holds": bool(gap <= max_gap)},
        {"claim": "refinement improves the adversarial map (Adv-CSLS -> Adv-Refine-CSLS)",
         "paper": paper_better("Adv - Refine - CSLS", "Adv - CSLS"), "ours": f"{b_ref}/{n} directions",
         "holds": bool(b_ref == n)},
        {"claim": "CSLS reduces hubness (fewer never-retrieved targets, smaller top hub)",
         "paper": "argued in the text (Figure 4.1 D)",
         "ours": f"never retrieved {h_nn['never retrieved (%)']:.0f}% -> {h_cs['never retrieved (%)']:.0f}%, "
                 f"top hub {h_nn['max count']} -> {h_cs['max count']}",
         "holds": bool(h_cs["never retrieved (%)"] < h_nn["never retrieved (%)"]
                       and h_cs["max count"] < h_nn["max count"])},
        {"claim": "CSLS beats NN for sentence retrieval (Table 4.3, Procrustes)", "paper": "it-en P@1 53.5 -> 69.5",
         "ours": f"it-en P@1 {s_nn['it-en P@1']:.1f} -> {s_cs['it-en P@1']:.1f}, "
                 f"en-it P@1 {s_nn['en-it P@1']:.1f} -> {s_cs['en-it P@1']:.1f}",
         "holds": bool(s_cs["it-en P@1"] > s_nn["it-en P@1"] and s_cs["en-it P@1"] > s_nn["en-it P@1"])},
        {"claim": "a CSLS dictionary gives higher word-by-word BLEU than NN (Table 4.5; checked on Procrustes)",
         "paper": "6.1 -> 11.1 and 11.9 -> 14.3",
         "ours": f"unsupervised {u_nn['en-eo']:.1f} -> {u_cs['en-eo']:.1f}, {u_nn['eo-en']:.1f} -> "
                 f"{u_cs['eo-en']:.1f}; Procrustes {p_nn['en-eo']:.1f} -> {p_cs['en-eo']:.1f}, "
                 f"{p_nn['eo-en']:.1f} -> {p_cs['eo-en']:.1f}",
         "holds": bool(p_cs["en-eo"] > p_nn["en-eo"] and p_cs["eo-en"] > p_nn["eo-en"])},
        {"claim": "the criterion ranks maps as accuracy does (Figure 4.2)", "paper": "well correlated (one run shown)",
         "ours": f"order agrees in {n_agree}/{len(agree)} directions",
         "holds": bool(n_agree >= min_agreement * len(agree))},
        {"claim": "same-corpus spaces align better than different corpora and models (Figure 4.3)",
         "paper": "(a) near perfect, (d) worst", "ours": f"CSLS P@1 (a) {acc_a:.0f}% vs (d) {acc_d:.0f}%",
         "holds": bool(acc_a > acc_d)},
    ]
