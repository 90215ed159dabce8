"""Write a small ``data_dir`` in the papers' real layouts, so every chapter's real-data code path
can run in CI.

The files have the names, folders and formats of the released data (SNLI / MultiNLI jsonl,
SentEval's ``downstream/`` and ``probing/`` folders, MUSE dictionaries in both directions, fastText
``wiki.<lang>.vec`` and ``glove.840B.300d.txt`` vectors, XNLI / XNLI-MT tsv, BUCC 2018, Moses
bitext, monolingual text: ``en.txt`` one stream, ``fr.txt`` documents separated by blank lines);
their *contents* are synthetic (sentences of the book's synthetic world, chapter 1; the foreign
languages are its invented languages written under the real codes; vectors are seeded random, the
foreign ones a rotation of the English ones plus noise, so an aligner has something to find). BUCC
is copied from the hand-written fixture ``tests/fixtures/formats/bucc2018``. Nothing here is a
measurement of anything: it exercises code paths. Deterministic: the same ``seed`` writes
byte-identical files.

Usage: ``python tools/make_fixture_data.py OUT [--seed 11]`` (``make fixture-data`` writes
``_build/fixture_data``).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xsent_lib.data.synthetic import SyntheticWorld  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
#: the real language codes of the fixture, and the invented language of the synthetic world behind
#: each one
LANGS = {"fr": "xa", "de": "xe", "es": "xc", "ru": "xd"}
NLI = ("entailment", "neutral", "contradiction")
N_SENT = 160  # examples per class / split of the small tasks


def _write(path: Path, lines: list[str], encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding=encoding)


def _nli_jsonl(path: Path, data, genre: str | None = None) -> None:
    rows = []
    for i, (p, h, y) in enumerate(zip(data.premise, data.hypothesis, data.label)):
        rec = {"annotator_labels": [NLI[y]], "gold_label": NLI[y], "pairID": f"{path.stem}-{i}",
               "sentence1": p, "sentence2": h}
        if genre:
            rec["genre"] = genre
        rows.append(json.dumps(rec))
    _write(path, rows)


def _senteval(root: Path, world: SyntheticWorld) -> None:
    d = root / "downstream"
    for task, (pos, neg), split in (("MR", ("rt-polarity.pos", "rt-polarity.neg"), "train"),
                                    ("CR", ("custrev.pos", "custrev.neg"), "dev"),
                                    ("SUBJ", ("subj.objective", "subj.subjective"), "test"),
                                    ("MPQA", ("mpqa.pos", "mpqa.neg"), "train")):
        # class 1: affirmative clauses, class 0: negated ones (the synthetic world's "not" marks the
        # class)
        sents = world.sentences(6 * N_SENT, "en", split=split)
        neg_s = [s for s in sents if " not " in s or "n't" in s][:N_SENT]
        pos_s = [s for s in sents if s not in neg_s and " not " not in s][:N_SENT]
        _write(d / task / pos, pos_s, "latin-1")
        _write(d / task / neg, neg_s, "latin-1")
    sst = world.sts(3 * N_SENT, split="train")
    for split, part in (("train", slice(0, 2 * N_SENT)),
                        ("dev", slice(2 * N_SENT, 2 * N_SENT + N_SENT // 2)),
                        ("test", slice(2 * N_SENT + N_SENT // 2, 3 * N_SENT))):
        rows = list(zip(sst.a[part], sst.score[part]))
        _write(d / "SST" / "binary" / f"sentiment-{split}",
               [f"{s} \t{int(v >= 2.5)}" for s, v in rows])
        _write(d / "SST" / "fine" / f"sentiment-{split}",
               [f"{min(int(v), 4)} {s}" for s, v in rows])
    qs = world.sentences(3 * N_SENT, "en", split="dev")
    labels = ("DESC:manner", "HUM:ind", "LOC:city", "ENTY:animal", "NUM:count", "ABBR:exp")
    trec = [f"{labels[len(s.split()) % 6]} {s}" for s in qs]
    _write(d / "TREC" / "train_5500.label", trec[: 2 * N_SENT], "latin-1")
    _write(d / "TREC" / "TREC_10.label", trec[2 * N_SENT:], "latin-1")
    header = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String"
    for name, split, n in (("msr_paraphrase_train.txt", "train", 2 * N_SENT),
                           ("msr_paraphrase_test.txt", "test", N_SENT)):
        s = world.sts(n, split=split)
        rows = [f"{int(v >= 3.5)}\t{2 * i}\t{2 * i + 1}\t{a}\t{b}"
                for i, (a, b, v) in enumerate(zip(s.a, s.b, s.score))]
        _write(d / "MRPC" / name, [header, *rows])
    nli = {split: world.nli(n, split, "en")
           for split, n in (("train", 2 * N_SENT), ("dev", N_SENT // 2), ("test", N_SENT))}
    for fname, split in (("SICK_train.txt", "train"), ("SICK_trial.txt", "dev"),
                         ("SICK_test_annotated.txt", "test")):
        data, sts = nli[split], world.sts(len(nli[split].label), split=split)
        rows = ["pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"]
        rows += [f"{i + 1}\t{p}\t{h}\t{1 + 4 * v / 5:.1f}\t{NLI[y].upper()}"
                 for i, (p, h, y, v)
                 in enumerate(zip(data.premise, data.hypothesis, data.label, sts.score))]
        _write(d / "SICK" / fname, rows)
    from xsent_lib.data.formats.sts import STS_SUBSETS

    for name, subsets in STS_SUBSETS.items():
        for k, subset in enumerate(subsets):
            s = world.sts(40, split="test")
            folder = d / "STS" / f"{name}-en-test"
            _write(folder / f"STS.input.{subset}.txt", [f"{a}\t{b}" for a, b in zip(s.a, s.b)])
            _write(folder / f"STS.gs.{subset}.txt", [f"{v:.2f}" for v in s.score])
    for fname, split, n in (("sts-train.csv", "train", 2 * N_SENT),
                            ("sts-dev.csv", "dev", N_SENT // 2), ("sts-test.csv", "test", N_SENT)):
        s = world.sts(n, split=split)
        _write(d / "STS" / "STSBenchmark" / fname,
               [f"main-captions\tMSRvid\t2012test\t{i:04d}\t{v:.3f}\t{a}\t{b}"
                for i, (a, b, v) in enumerate(zip(s.a, s.b, s.score))])


def _probing(root: Path, world: SyntheticWorld) -> None:
    from xsent_lib.data.formats.probing import PROBING_TASKS

    for task, (_, fname) in PROBING_TASKS.items():
        p = world.probing(task, 120, 40, 60)
        rows = []
        for code, split in (("tr", "train"), ("va", "dev"), ("te", "test")):
            part = getattr(p, split)
            rows += [f"{code}\t{p.classes[int(y)].replace(' ', '_')}\t{s}"
                     for s, y in zip(part.sentences, part.labels)]
        _write(root / "probing" / fname, rows)


def _vectors(root: Path, world: SyntheticWorld, english_words: list[str],
             rng: np.random.Generator) -> None:
    dim = 300
    base = {w: rng.normal(0, 0.4, dim).astype(np.float32) for w in english_words}

    def fmt(v: np.ndarray) -> str:
        return " ".join(f"{x:.4f}" for x in v)

    _write(root / "glove.840B.300d.txt", [f"{w} {fmt(v)}" for w, v in base.items()])
    en_rows = [f"{w} {fmt(v + rng.normal(0, 0.05, dim))}" for w, v in base.items()]
    _write(root / "wiki.en.vec", [f"{len(en_rows)} {dim}", *en_rows])
    _write(root / "crawl-300d-2M.vec", [f"{len(en_rows)} {dim}", *en_rows])
    for lang, code in LANGS.items():
        q, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
        lex = world.lexicon("en", code)
        vocab: dict[str, np.ndarray] = {}
        for en, fo in [*lex.train, *lex.test]:
            if en in base and fo not in vocab:
                vocab[fo] = (q @ base[en] + rng.normal(0, 0.05, dim)).astype(np.float32)
        bitext = root / "bitext" / f"europarl-v7.{lang}-en.{lang}"
        texts = world.sentences(400, code, split="train") + (bitext.read_text().splitlines()
                                                             if bitext.is_file() else [])
        for fo in texts:
            for tok in fo.lower().split():
                vocab.setdefault(tok, rng.normal(0, 0.4, dim).astype(np.float32))
        _write(root / f"wiki.{lang}.vec",
               [f"{len(vocab)} {dim}", *[f"{w} {fmt(v)}" for w, v in vocab.items()]])
        pairs = [(en, fo) for en, fo in [*lex.train, *lex.test] if en in base and fo in vocab]
        cut = int(0.8 * len(pairs))
        dicts = root / "crosslingual" / "dictionaries"
        for fname, part in ((f"en-{lang}.0-5000.txt", pairs[:cut]),
                            (f"en-{lang}.5000-6500.txt", pairs[cut:])):
            _write(dicts / fname, [f"{a} {b}" for a, b in part])
        for fname, part in ((f"{lang}-en.0-5000.txt", pairs[:cut]),
                            (f"{lang}-en.5000-6500.txt", pairs[cut:])):
            _write(dicts / fname, [f"{b} {a}" for a, b in part])


def _xnli(root: Path, world: SyntheticWorld) -> None:
    """XNLI 1.0 dev/test (en + fr + de) and XNLI-MT 1.0 training files (en and its
    "translations")."""
    langs = {"en": "en", "fr": LANGS["fr"], "de": LANGS["de"]}
    data = world.xnli(3 * N_SENT, N_SENT, N_SENT, tuple(langs.values()))
    header = "language\tgold_label\tsentence1\tsentence2\tpromptID\tpairID\tgenre"
    for split in ("dev", "test"):
        rows = [header]
        for lang, code in langs.items():
            d = data[split][code]
            rows += [f"{lang}\t{NLI[y]}\t{p}\t{h}\t{i}\t{i}{NLI[y][0]}\tfiction"
                     for i, (p, h, y) in enumerate(zip(d.premise, d.hypothesis, d.label))]
        _write(root / "XNLI-1.0" / f"xnli.{split}.tsv", rows)
    train = data["train"]
    mt_label = {"entailment": "entailment", "neutral": "neutral", "contradiction": "contradictory"}
    for lang, code in langs.items():
        prem = train.premise if code == "en" else world.render(train.premise_forms, code)
        hyp = train.hypothesis if code == "en" else world.render(train.hypothesis_forms, code)
        _write(root / "XNLI-MT-1.0" / "multinli" / f"multinli.train.{lang}.tsv",
               ["premise\thypo\tlabel",
                *[f"{p}\t{h}\t{mt_label[NLI[y]]}" for p, h, y in zip(prem, hyp, train.label)]])


def build(out: Path, seed: int = 11) -> Path:
    """Write the fixture ``data_dir`` into ``out`` (replaced if present) and return it.

    Book: chapter 0 (How to run this book: your own data).
    """
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    world = SyntheticWorld(seed)
    rng = np.random.default_rng(seed)
    for split, n in (("train", 3 * N_SENT), ("dev", N_SENT), ("test", N_SENT)):
        _nli_jsonl(out / "snli_1.0" / f"snli_1.0_{split}.jsonl", world.nli(n, split, "en"))
    for split, n in (("train", 3 * N_SENT), ("dev_matched", N_SENT // 2),
                     ("dev_mismatched", N_SENT // 2)):
        _nli_jsonl(out / "multinli_1.0" / f"multinli_1.0_{split}.jsonl",
                   world.nli(n, "dev" if split != "train" else "train", "en"), genre="fiction")
    _senteval(out, world)
    _probing(out, world)
    for lang in ("fr", "de"):
        par = world.parallel(1400, "en", LANGS[lang], split="test")
        _write(out / "bitext" / f"europarl-v7.{lang}-en.en", par.src)
        _write(out / "bitext" / f"europarl-v7.{lang}-en.{lang}", par.tgt)
    _write(out / "monolingual" / "en.txt", world.sentences(3 * N_SENT, "en", split="train"))
    _xnli(out, world)
    shutil.copytree(FIXTURES / "formats" / "bucc2018", out / "bucc2018")
    words: dict[str, None] = {}
    for path in sorted(out.rglob("*")):
        if (path.is_file()
                and path.suffix in {".jsonl", ".txt", ".label", ".csv", ".en", ".tsv", ""}
                and "crosslingual" not in path.parts
                and not any(x.startswith("XNLI") for x in path.parts)):
            text = path.read_bytes().decode("utf-8", "replace")
            for tok in text.replace("\t", " ").split():
                if not tok.startswith(("{", "\"")) and len(tok) < 30:
                    words.setdefault(tok.lower(), None)
    english = [w for w in words if w.isascii()][:6000]
    _vectors(out, world, english, rng)
    # a second language's own documents (blank line between documents), written last so that no
    # other file changes
    docs = world.documents(40, 8, lang=LANGS["fr"], split="train", parallel=False).documents
    _write(out / "monolingual" / "fr.txt", [line for d in docs for line in (*d, "")][:-1])
    (out / "README.md").write_text(__doc__.split("\n\nUsage")[0] + "\n")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    out = build(Path(args.out), args.seed)
    n = sum(1 for p in out.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"fixture data_dir: {out} ({n} files, {size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
