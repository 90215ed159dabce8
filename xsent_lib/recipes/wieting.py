"""Chapter 8's plan: Wieting et al. (2019), paraphrastic sentence embeddings trained on bitext.

Sizes per profile (:data:`PLANS`, one :class:`WietingPlan` each), the settings the method layers
take (:attr:`WietingPlan.shape`, :attr:`WietingPlan.schedule`, :attr:`WietingPlan.speed`), the
paper's row labels, and the claims as data (:data:`CLAIM_SET`). The method lives below: the bitext
split in ``data.bitext_split``, BUCC's splits in ``data.bucc_splits``, the encoders and their
training in ``train.paraphrase_models``, the evaluations in ``eval.paraphrase_study``, the timings
in ``eval.encoder_speed`` and the run's sentences in ``results.paraphrase_summary``.
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from xsent_lib.eval.encoder_speed import SpeedSettings
from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.paper import paper_table
from xsent_lib.train.paraphrase_models import BitextSchedule, EncoderShape

SEED = "wieting2019"


@dataclass(frozen=True, kw_only=True)
class WietingPlan:
    """Sizes of one profile. ``sp_vocabs`` are our two sentencepiece sizes (standing for the paper's
    20k and 40k: same ratio, scaled to our text); ``megabatch`` the mega-batch size of the main rows
    and ``ablation`` the sizes of the mega-batch study (1 = in-batch negatives); ``anneal_rate`` as
    in ``ParaphraseConfig``. ``init_std`` and ``dropout`` depart from the paper (N(0, 1), dropout
    0.3) outside ``full``: with a few hundred Adam steps at lr 0.001 instead of ~100k, N(0, 1)
    embeddings barely move, and dropout takes the slow unfused path of the bag encoder. A cosine
    does not see the scale, so random rows are unaffected. The LSTMs keep the paper's N(0, 1)
    (``blstm_init_std``) and BLSTM-SP the paper's annealed mega-batch (``blstm_anneal_rate``: one
    mini-batch, growing by one every 150): with 0.1-scale inputs the LSTM's biases dominate and
    every sentence starts in nearly one direction (the chapter's probe measures it), and 16
    mini-batches of hardest negatives from the first step may hold it there
    (``benchmarks/diag_blstm_sp.py`` tests both, one setting at a time). ``bucc_sentences`` caps
    each side of each BUCC 2018 split read from ``data_dir`` in ``book`` (through ``ch.data.limit``:
    ``smoke`` reads a few hundred, ``full`` all). ``double_kinds`` are the encoder kinds Table 1
    also trains on twice the pairs (the paper's en-cs(2M) column; BLSTM-SP only in ``full``, for
    time).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    n_train: int
    epochs: int
    sp_vocabs: tuple[int, int]
    megabatch: int
    ablation: tuple[int, ...]
    n_sts: int
    n_synth_train: int
    synth_sp_vocabs: tuple[int, int]
    mining_gold: int
    mining_noise: int
    speed_sentences: int
    speed_lstm_sentences: int
    mining_pairs: tuple[str, ...] = ("nlp-en-fr",)
    anneal_rate: int | None = None
    max_len: int = 32
    dim: int = 300
    blstm_hidden: int = 150
    dropout: float = 0.0
    init_std: float = 0.1
    batch_size: int = 128
    speed_repeats: int = 3
    threads: tuple[int, ...] = (1, 2)
    synth_lang: str = "xa"
    use_reference: bool = True
    blstm_init_std: float = 1.0
    blstm_anneal_rate: int | None = 150
    lang_pairs: tuple[str, ...] = ("nlp-en-fr",)
    lang_vocabs: tuple[int, ...] = (500,)
    lang_train: int = 512
    lang_gold: int = 50
    lang_noise: int = 100
    probe_pairs: int = 200
    target_sentences: int = 1024
    speed_me5_sentences: int = 64
    transformer_dim: int = 256
    transformer_layers: int = 2
    transformer_heads: int = 4
    bucc_sentences: int = 5000
    double_kinds: tuple[str, ...] = ("word", "trigram", "sp")

    @property
    def shape(self) -> EncoderShape:
        """The encoders' sizes and initial scales.

        Book: chapter 8 (Paraphrastic embeddings from bitext).
        """
        return EncoderShape(dim=self.dim, blstm_hidden=self.blstm_hidden, dropout=self.dropout,
                            init_std=self.init_std, blstm_init_std=self.blstm_init_std)

    @property
    def schedule(self) -> BitextSchedule:
        """The training schedule. Book: chapter 8 (Paraphrastic embeddings from bitext)."""
        return BitextSchedule(batch_size=self.batch_size, epochs=self.epochs, max_len=self.max_len,
                              megabatch=self.megabatch, anneal_rate=self.anneal_rate,
                              blstm_anneal_rate=self.blstm_anneal_rate)

    @property
    def speed(self) -> SpeedSettings:
        """How Table 4 times the encoders. Book: chapter 8 (Paraphrastic embeddings from bitext)."""
        return SpeedSettings(batch_size=self.batch_size, threads=self.threads,
                             repeats=self.speed_repeats, slow_sentences=self.speed_lstm_sentences,
                             me5_sentences=self.speed_me5_sentences,
                             use_reference=self.use_reference)

    @property
    def transformer_label(self) -> str:
        """Table 4's name of the untrained transformer, with its size.

        Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
        """
        return f"Transformer {self.transformer_layers}x{self.transformer_dim} (ours, untrained)"


PLANS: dict[str, WietingPlan] = {
    "smoke": WietingPlan(n_train=768, epochs=1, sp_vocabs=(500, 1000), megabatch=2, ablation=(1, 2),
                         n_sts=300, n_synth_train=768, synth_sp_vocabs=(200, 400), mining_gold=100,
                         mining_noise=200, speed_sentences=256, speed_lstm_sentences=32,
                         speed_repeats=1, use_reference=False),
    "book": WietingPlan(n_train=6144, epochs=2, sp_vocabs=(4000, 8000), megabatch=16,
                        ablation=(1, 4, 16), n_sts=2000, n_synth_train=6144,
                        synth_sp_vocabs=(500, 1000), mining_gold=500, mining_noise=1500,
                        speed_sentences=2048, speed_lstm_sentences=128, speed_repeats=2,
                        mining_pairs=("nlp-en-fr", "nlp-en-de"),
                        lang_pairs=("nlp-en-fr", "nlp-en-de", "bible-en-es", "lohelp-en-es",
                                    "lohelp-en-de", "gettext-en-fr"),
                        lang_vocabs=(1000, 4000), lang_train=2048, lang_gold=200, lang_noise=400,
                        probe_pairs=500, target_sentences=16_384),
    #: book's data and CPU timings (Table 4 times 1 and 2 threads); the GPU trains on more pairs
    #: for more epochs, larger vocabularies and megabatches, larger mining and language sets
    "gpu": WietingPlan(n_train=16_384, epochs=3, sp_vocabs=(8000, 20_000), megabatch=16,
                       ablation=(1, 4, 16, 60), n_sts=2000, n_synth_train=16_384,
                       synth_sp_vocabs=(1000, 2000), mining_gold=1000, mining_noise=3000,
                       speed_sentences=2048, speed_lstm_sentences=128, speed_repeats=2,
                       mining_pairs=("nlp-en-fr", "nlp-en-de"),
                       lang_pairs=("nlp-en-fr", "nlp-en-de", "bible-en-es", "lohelp-en-es",
                                   "lohelp-en-de", "gettext-en-fr"),
                       lang_vocabs=(1000, 4000, 8000), lang_train=4096, lang_gold=400,
                       lang_noise=800, probe_pairs=1000, target_sentences=16_384),
    "full": WietingPlan(n_train=80_000, epochs=10, sp_vocabs=(20_000, 40_000), megabatch=60,
                        ablation=(1, 10, 60), n_sts=5000, n_synth_train=100_000,
                        synth_sp_vocabs=(1000, 2000), mining_gold=2000, mining_noise=20_000,
                        speed_sentences=128_000, speed_lstm_sentences=4096,
                        mining_pairs=("nlp-en-fr", "nlp-en-de"), anneal_rate=150, max_len=100,
                        dropout=0.3, init_std=1.0,
                        # gettext's 7k pairs: too few for 5k-sentence mining
                        lang_pairs=("nlp-en-fr", "nlp-en-de", "bible-en-es", "lohelp-en-es",
                                    "lohelp-en-de", "lohelp-en-fr"),
                        lang_vocabs=(5000, 20_000, 40_000), lang_train=20_000, lang_gold=1000,
                        lang_noise=4000, probe_pairs=2000, target_sentences=128_000,
                        speed_me5_sentences=512,
                        double_kinds=("word", "trigram", "sp", "blstm-sp")),
}


#: what :func:`work` counts
WORK_UNIT = "training sentence pairs x epochs, summed over the models the chapter trains"


def work(plan: WietingPlan) -> float:
    """The plan's training, in :data:`WORK_UNIT`: per mining pair Word, Trigram, BLSTM-SP and
    one SP per vocabulary, the megabatch ablation, the doubled-data models, the synthetic-world SP
    models and the language-choice grid (an approximation: a BLSTM step costs more than an
    averaging one).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    main = len(plan.mining_pairs) * (3 + len(plan.sp_vocabs)) + len(plan.ablation)
    return float(plan.epochs * (plan.n_train * main + 2 * plan.n_train * len(plan.double_kinds)
                                + plan.n_synth_train * len(plan.synth_sp_vocabs)
                                + plan.lang_train * len(plan.lang_pairs) * len(plan.lang_vocabs)))


def paper_rows(
    ours: Mapping[str, Mapping[str, float]], row_map: Mapping[str, str], col_map: Mapping[str, str]
) -> dict[str, dict[str, float]]:
    """Re-key our results ``{our row: {our column: value}}`` by the paper's labels for
    ``side_by_side``.

    Rows and columns missing from the maps keep their own names (they show with an empty paper
    cell).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    return {
        row_map.get(r, r): {col_map.get(c, c): v for c, v in cols.items()}
        for r, cols in ours.items()
    }


Number = float | Absent | None


@dataclass(frozen=True, kw_only=True)
class WietingClaimNumbers:
    """The numbers chapter 8's claims read. STS and mining are x100; ``sts_sp_minus_best_other`` is
    SP's English STS minus the best of Word, Trigram and BLSTM-SP trained on the same bitext;
    ``blstm_sp_learned`` is 1.0 when BLSTM-SP beats the untrained SP encoder on both STS and mining,
    else 0.0; ``xsts_sp_minus_best_random`` is trained SP's cross-lingual STS minus the best random
    encoder's, the smallest over the cross-lingual columns; the ``speed_up_*`` fields are SP's
    text-to-vector rate on 1 CPU thread over another encoder's (timings).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    sts_sp_minus_best_other: Number
    sts_sp_minus_blstm_sp: Number
    mining_sp_minus_blstm_sp: Number
    blstm_sp_learned: Number
    sts_megabatch: Number
    sts_in_batch_random: Number
    sts_in_batch_hardest: Number
    mining_megabatch: Number
    mining_in_batch_random: Number
    mining_in_batch_hardest: Number
    xsts_sp_minus_best_random: Number
    xsts_sp_minus_random_sp: Number
    speed_up_over_bilstm_max: Number
    speed_up_over_use: Number
    speed_up_over_blstm_sp: Number

    def logged(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The numbers as the chapter logs them: ``(results, timings)``, the speed-ups in the second
        part (a record marked ``"timed"``), an :class:`Absent` number as ``"n/a: why"``.
        Book: chapter 8 (Paraphrastic embeddings from bitext).
        """
        shown = {
            f.name: (f"n/a: {v.why}" if isinstance(v, Absent) else v)
            for f in fields(self)
            for v in (getattr(self, f.name),)
        }
        speed = {k: v for k, v in shown.items() if k.startswith("speed_up_")}
        return {k: v for k, v in shown.items() if k not in speed}, {"timed": True, **speed}


def claim_numbers(
    table1: Mapping[str, Mapping[str, float]],
    ablation: Mapping[int, Mapping[str, float]],
    random_negatives: Mapping[str, float],
    table2: Mapping[str, Mapping[str, float]],
    speed: Sequence[Mapping[str, Any]],
    *,
    sp: str,
    blstm: str,
    others: Sequence[str],
    untrained_sp: str,
    synth_sp: str,
    synth_random_sp: str,
    sts_col: str,
    mining_col: str,
    xsts_cols: Sequence[str],
    lstm_speed: str,
    use_speed: str,
) -> WietingClaimNumbers:
    """The claims' numbers from the chapter's tables (row and column names given by the caller).

    The mega-batch claims compare the largest size of the ablation (hardest negatives) with in-batch
    *random* negatives (``random_negatives``: the same encoder trained with ``negatives="random"``,
    ``megabatch=1``) and with size 1 (in-batch hardest); both fixed in advance, not picked on the
    results. The random encoders of Table 2 are its rows named ``Random ...``. An encoder missing
    from ``speed`` gives no number (the claim fails), except USE, which is :class:`Absent` when it
    was not timed (not in the data cache, or a profile that times no reference encoder).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    def rate(name: str) -> float | None:
        hits = [
            r["sentences/s"]
            for r in speed
            if r["encoder"] == name and r["threads"] == 1 and r["regime"] == "text to vector"
        ]
        return hits[0] if hits else None

    def speed_up(slow: str) -> float | None:
        fast, slower = rate(sp), rate(slow)
        return fast / slower if fast and slower else None

    largest = max(ablation)
    if largest <= 1 or 1 not in ablation:
        raise ValueError(f"the ablation needs size 1 and a larger size, got {sorted(ablation)}.")
    learned = all(table1[blstm][c] > table1[untrained_sp][c] for c in (sts_col, mining_col))
    randoms = [k for k in table2 if k.startswith("Random")]
    use = speed_up(use_speed) if rate(use_speed) is not None else Absent(
        f"{use_speed} was not timed (not in the data cache, or this profile times no reference "
        "encoder)")
    return WietingClaimNumbers(
        sts_sp_minus_best_other=table1[sp][sts_col] - max(table1[o][sts_col] for o in others),
        sts_sp_minus_blstm_sp=table1[sp][sts_col] - table1[blstm][sts_col],
        mining_sp_minus_blstm_sp=table1[sp][mining_col] - table1[blstm][mining_col],
        blstm_sp_learned=float(learned),
        sts_megabatch=ablation[largest][sts_col], sts_in_batch_random=random_negatives[sts_col],
        sts_in_batch_hardest=ablation[1][sts_col], mining_megabatch=ablation[largest][mining_col],
        mining_in_batch_random=random_negatives[mining_col],
        mining_in_batch_hardest=ablation[1][mining_col],
        xsts_sp_minus_best_random=min(table2[synth_sp][c] - max(table2[r][c] for r in randoms)
                                      for c in xsts_cols),
        xsts_sp_minus_random_sp=min(table2[synth_sp][c] - table2[synth_random_sp][c]
                                    for c in xsts_cols),
        speed_up_over_bilstm_max=speed_up(lstm_speed), speed_up_over_use=use,
        speed_up_over_blstm_sp=speed_up(blstm))


def paper_numbers() -> WietingClaimNumbers:
    """:class:`WietingClaimNumbers` from the paper's stored Tables 1, 2 and 4 (Table 1's en-cs(1M)
    column, Table 2's cross-lingual columns ar-en, es-en and tr-en, Table 4's SP (20k) 300-d against
    Schwenk (2018) and Chidambaram et al. (2018)); :class:`Absent` where the tables do not report
    what a claim compares.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    t1 = paper_table(SEED, "table_1")["en-cs(1M)"]
    t2, t4 = paper_table(SEED, "table_2"), paper_table(SEED, "table_4")["Sentences/Sec."]
    sp2, randoms = "SP (20k) (OS 1M, 300-d)", [r for r in t2.index if r.startswith("Random")]
    no_blstm = Absent("the paper's Table 3 (mining) has no BLSTM-SP row")
    no_ablation = Absent("the paper's tables report no mega-batch ablation (Wieting & Gimpel "
                         "2018 do)")
    return WietingClaimNumbers(
        sts_sp_minus_best_other=float(t1["SP (20k)"] - t1.drop("SP (20k)").max()),
        sts_sp_minus_blstm_sp=float(t1["SP (20k)"] - t1["BLSTM-SP (20k)"]),
        mining_sp_minus_blstm_sp=no_blstm, blstm_sp_learned=no_blstm, sts_megabatch=no_ablation,
        sts_in_batch_random=no_ablation, sts_in_batch_hardest=no_ablation,
        mining_megabatch=no_ablation, mining_in_batch_random=no_ablation,
        mining_in_batch_hardest=no_ablation,
        xsts_sp_minus_best_random=float(min(t2.loc[sp2, c] - t2.loc[randoms, c].max()
                                            for c in ("ar-en", "es-en", "tr-en"))),
        xsts_sp_minus_random_sp=float(t2.loc[sp2, "es-en"] - t2.loc["Random SP (20k)", "es-en"]),
        speed_up_over_bilstm_max=float(t4["SP (20k) (300-d)"] / t4["Schwenk (2018)"]),
        speed_up_over_use=float(t4["SP (20k) (300-d)"] / t4["Chidambaram et al. (2018)"]),
        speed_up_over_blstm_sp=Absent("the paper's Table 4 does not time BLSTM-SP"))


_PAPER = "Wieting et al. 2019"
_MEGA_QUOTE = ("To select difficult negative examples that aid training, we use the mega-batching "
               "procedure of Wieting and Gimpel (2018), which aggregates mini-batches to create "
               "one mega-batch and selects negative examples therefrom.")
_SIMPLE_QUOTE = ("However, the paraphrastic sentence embedding literature has observed that simple "
                 "models such as pooling word embeddings generalize significantly better than "
                 "complex architectures Wieting et al. (2016b). Here, we find a similar effect in "
                 "the bilingual setting.")
_XSTS_QUOTE = ("For cross-lingual similarity, however, random encoders lag behind because they are "
               "essentially measuring the lexical overlap in the two sentences and there is little "
               "lexical overlap in the cross-lingual setting, especially for distantly related "
               "languages like Arabic and English.")
_LEARNED = (("blstm_sp_learned", "==", 1.0),)


def _megabatch_claim(task: str, baseline: str, ident: str) -> Claim:
    base = f"in-batch {baseline} negatives"
    return Claim(f"hardest negatives from a mega-batch aid training over {base} ({task})",
                 f"{task}_megabatch", ">", f"{task}_in_batch_{baseline}",
                 "Wieting & Gimpel (2018), adopted in Sec. 2 without a table",
                 note=f"the largest mega-batch of the ablation (hardest negatives) against {base}",
                 id=ident, quote=_MEGA_QUOTE, where=f"{_PAPER} §2 (Negative Sampling)")


CLAIMS: tuple[Claim, ...] = (
    Claim("SP has the best overall performance in the en-cs (bitext) setting of Table 1",
          "sts_sp_minus_best_other", ">=", 0.0,
          (PaperCell(SEED, "table_1", "SP (20k)", "en-cs(1M)"),
           PaperCell(SEED, "table_1", "Trigram", "en-cs(1M)")),
          note="English STS; best read as no encoder (Word, Trigram, BLSTM-SP) above SP: the "
               "paper's own en-cs(1M) column ties SP with Trigram at 70.0",
          weaker=Weaker("SP at most 2 points below a BLSTM-SP that learned (beats untrained SP on "
                        "STS and mining)", "sts_sp_minus_blstm_sp", ">=", -2.0, also=_LEARNED,
                        id="ch08.sp_near_blstm_sp_sts"),
          id="ch08.sp_best_bitext_sts",
          quote="Second, SP has the best overall performance in the en-cs setting.",
          where=f"{_PAPER} §3.2, Table 1"),
    Claim("simple SP averaging generalizes better than the deep BLSTM-SP in the bilingual setting "
          "(mining)", "mining_sp_minus_blstm_sp", ">", 0.0,
          "the paper mines with SP only (Table 3); the comparison with an LSTM is its Sec. 1 "
          "argument",
          weaker=Weaker("SP at most 2 F1 points below a BLSTM-SP that learned",
                        "mining_sp_minus_blstm_sp", ">=", -2.0, also=_LEARNED,
                        id="ch08.sp_near_blstm_sp_mining"),
          id="ch08.simple_beats_deep_mining", quote=_SIMPLE_QUOTE, where=f"{_PAPER} §1"),
    _megabatch_claim("sts", "random", "ch08.megabatch_beats_random_sts"),
    _megabatch_claim("mining", "random", "ch08.megabatch_beats_random_mining"),
    _megabatch_claim("sts", "hardest", "ch08.megabatch_beats_in_batch_sts"),
    _megabatch_claim("mining", "hardest", "ch08.megabatch_beats_in_batch_mining"),
    Claim("for cross-lingual similarity random encoders lag behind the trained SP",
          "xsts_sp_minus_best_random", ">", 0.0,
          (PaperCell(SEED, "table_2", "SP (20k) (OS 1M, 300-d)", "es-en"),
           PaperCell(SEED, "table_2", "Random SP (40k)", "es-en")),
          note="every random encoder (Random Trigram and both Random SP), every cross-lingual "
               "column",
          weaker=Weaker("the trained SP beats the random SP of its own vocabulary size",
                        "xsts_sp_minus_random_sp", ">", 0.0, id="ch08.bitext_beats_random_sp_xsts"),
          id="ch08.random_lag_crosslingual", quote=_XSTS_QUOTE, where=f"{_PAPER} §3.3, Table 2"),
    Claim("SP is hundreds of times faster than the baselines of Table 4 (an NMT BiLSTM and USE)",
          "speed_up_over_bilstm_max", ">=", 200.0,
          (PaperCell(SEED, "table_4", "SP (20k) (300-d)", "Sentences/Sec."),
           PaperCell(SEED, "table_4", "Schwenk (2018)", "Sentences/Sec."),
           PaperCell(SEED, "table_4", "Chidambaram et al. (2018)", "Sentences/Sec.")),
          note="hundreds read as at least 200x; 1 CPU thread, text to vector; Schwenk's encoder "
               "stands as a 1-layer 2 x 512 BiLSTM-max (his has 3), Chidambaram et al.'s as "
               "USE-multilingual v3",
          also=(("speed_up_over_use", ">=", 200.0),),
          weaker=Weaker("more than 100x faster than the Schwenk-width BiLSTM-max alone",
                        "speed_up_over_bilstm_max", ">", 100.0, id="ch08.speed_100x_bilstm_max"),
          timed=True, id="ch08.sp_hundreds_faster",
          quote="The number of sentences encoded per second is shown in Table 4, showing that SP "
                "is hundreds of times faster.", where=f"{_PAPER} §4.1, Table 4"),
    Claim("SP is faster at encoding new sentences than BLSTM-SP", "speed_up_over_blstm_sp", ">",
          1.0,
          "Sec. 3.2 in prose; Table 4 does not time BLSTM-SP", note="1 CPU thread, text to vector",
          timed=True, id="ch08.sp_faster_than_blstm_sp",
          quote="Further, it is faster at encoding new sentences at test time.",
          where=f"{_PAPER} §3.2"),
)

CLAIM_SET = ClaimSet("08_wieting", CLAIMS, paper_numbers)
