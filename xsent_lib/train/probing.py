"""Training data and settings of the probing study's encoders (thesis section 3.3): the synthetic
world's or the real corpora of each training task, and the optimiser and decoder settings of each
architecture.

Book: chapter 4 (Probing: the training tasks).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.nli_corpus import NLICorpus, synthetic_nli
from xsent_lib.data.probing_sets import check_sizes
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.train.seq2seq import Seq2SeqConfig, Seq2SeqCorpus, seq2seq_corpus


@dataclass(frozen=True, kw_only=True)
class TrainSettings:
    """How the encoders are trained: sizes, optimisers, the decoder and the NLI head, the curves.

    Thesis: Adam for the BiLSTMs, SGD with momentum for the gated ConvNet (Adam gave very poor
    results there); decoder 2 layers x 512 fed the sentence vector at every step; NLI head an
    MLP of 100 hidden units; BiLSTM encoders of 2 layers (``lstm_layers``, the full plan's value).
    Our defaults shrink the decoder (``decoder_layers`` x ``decoder_dim``) and use one encoder
    layer; the learning rates, momentum 0.9 and the gradient clip at 5 are our
    choices (the thesis gives none). ``curve_points`` evaluations (plus one before training)
    make the per-epoch curves, each with ``curve_probe`` probes.
    Book: chapter 4 (Probing: training details).
    """

    epochs: int = 1
    batch_size: int = 128
    adam_lr: float = 2e-3
    sgd_lr: float = 0.05
    momentum: float = 0.9
    clip_norm: float = 5.0
    decoder_dim: int = 256
    decoder_layers: int = 1
    decoder_embed: int = 64
    nli_hidden: int = 100
    conv_layers: int = 4
    lstm_layers: int = 1
    curve_points: int = 4
    curve_probe: str = "logreg"
    probe_mode: str = "fast"
    eval_batch_size: int = 256

    def seq2seq_config(self, arch: str) -> Seq2SeqConfig:
        """The optimiser and decoder of encoder ``arch``: SGD for the ConvNet, else Adam.

        Book: chapter 4 (Probing: training details).
        """
        sgd = arch == "gated-convnet"
        return Seq2SeqConfig(self.epochs, self.batch_size, "sgd" if sgd else "adam",
                             self.sgd_lr if sgd else self.adam_lr, self.momentum if sgd else 0.0,
                             self.clip_norm, self.decoder_dim, self.decoder_layers,
                             self.decoder_embed, self.eval_batch_size)


#: the real corpus of each training task in ``data_dir`` (a key of
#: ``xsent_lib.data.sources.REAL_DATA``) and its files; Seq2Tree has no real counterpart here (the
#: thesis parsed its NMT data with a parser we do not ship)
REAL_TRAINING_DATA: dict[str, tuple[str, str]] = {
    "nli": ("snli", "snli_1.0/snli_1.0_{train,dev,test}.jsonl"),
    "autoencoder": ("monolingual", "monolingual/en.txt"),
    "skipthought": ("monolingual", "monolingual/en.txt (sentences in document order)"),
    "nmt-fr": ("bitext", "bitext/europarl-v7.fr-en.{en,fr}"),
    "nmt-de": ("bitext", "bitext/europarl-v7.de-en.{en,de}"),
    "nmt-fi": ("bitext", "bitext/europarl-v7.fi-en.{en,fi}"),
}


def real_training_corpus(data_dir: str | Path, task: str, n_train: int | None,
                         n_eval: int | None) -> Seq2SeqCorpus | NLICorpus:
    """Training ``task`` on the real corpus of :data:`REAL_TRAINING_DATA` in ``data_dir``: SNLI for
    NLI, Europarl (Moses files) for NMT, sentence-per-line English text for the auto-encoder and
    SkipThought (each sentence to the next one). Dev and test are the ``n_eval`` lines after the
    training lines (``None``: SNLI's own dev/test, else 1% each). Missing files raise
    FileNotFoundError naming them. Book: chapter 4 (Probing: the training tasks of the full
    profile).
    """
    from xsent_lib.data.formats import load_moses_bitext
    from xsent_lib.data.formats._io import read_lines
    from xsent_lib.data.nli_corpus import snli_corpus

    if task not in REAL_TRAINING_DATA:
        raise ValueError(f"no real corpus for training task {task!r}; real ones: "
                         f"{list(REAL_TRAINING_DATA)}.")
    root = Path(data_dir)
    if task == "nli":
        return snli_corpus(root, max_train=n_train, max_eval=n_eval)
    hint = f"training task {task} reads {REAL_TRAINING_DATA[task][1]} under data_dir"
    if task in ("autoencoder", "skipthought"):
        lines = [x for x in read_lines(root / "monolingual" / "en.txt", hint) if x.strip()]
        src, tgt = (lines, lines) if task == "autoencoder" else (lines[:-1], lines[1:])
        what = ("English text -> the same sentence" if task == "autoencoder"
                else "sentence -> next sentence (real text)")
    else:
        lang = task.split("-")[1]
        total = None if n_train is None or n_eval is None else n_train + 2 * n_eval
        bi = load_moses_bitext(root / "bitext" / f"europarl-v7.{lang}-en", "en", lang, total)
        src, tgt = list(bi.source), list(bi.target)
        what = f"English -> {lang} (Europarl)"
    n = len(src)
    n_ev = n_eval if n_eval is not None else max(1, n // 100)
    n_tr = min(n - 2 * n_ev, n_train if n_train is not None else n)
    if n_tr < 1:
        raise ValueError(f"{hint}: {n} sentence pairs are too few for {n_ev} dev + {n_ev} test "
                         "pairs.")
    cuts = {"train": slice(0, n_tr), "dev": slice(n_tr, n_tr + n_ev),
            "test": slice(n_tr + n_ev, n_tr + 2 * n_ev)}
    return Seq2SeqCorpus(task, {k: src[c] for k, c in cuts.items()},
                         {k: tgt[c] for k, c in cuts.items()}, what)


def training_corpus(world: SyntheticWorld, task: str, n_train: int, n_dev: int,
                    n_test: int) -> Seq2SeqCorpus | NLICorpus:
    """The data of training ``task``: English NLI pairs for ``nli``, else a seq2seq corpus.

    Book: chapter 4 (Probing: the training tasks).
    """
    if task == "nli":
        return synthetic_nli(world, *check_sizes((n_train, n_dev, n_test)))
    return seq2seq_corpus(world, task, n_train, n_dev, n_test)
