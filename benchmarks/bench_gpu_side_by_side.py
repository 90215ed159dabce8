"""Issue 26's rows beside the reference tools: one process, one device (a GPU; a CPU for a dry run).

    python benchmarks/bench_gpu_side_by_side.py [--device auto|cpu|cuda] [--quick] [--refs .gl/gpu]
        [--only csls,infersent,sp] [--out _build/gpu/side_by_side_gpu.json]

``--refs`` holds what benchmarks/prepare_gpu_carry.py wrote (MUSE's ``src``, InferSent's
``models.py`` with its numpy fix, Table 4's 128,000 sentences and SP 20k model); a missing reference
leaves its row out with the reason recorded. Sections:

1. ``csls``: CSLS word translation, 200k x 200k words, 300-d, 1,500 queries, P@1/5/10: MUSE's
   ``get_word_translation_accuracy`` (``csls_knn_10``, tensors on the device) against
   ``eval.crosslingual.word_translation(device=...)`` (fast exact path) and
   ``base.neighbors.csls_knn`` in float32; the P@k must be identical.
2. ``infersent``: the release's ``InferSent.encode`` against ``load_infersent(...).encode`` on the
   same random 2 x 2048 weights and 20,000 sentences, batch 128 and 1024, float32 and bfloat16,
   cosine to the release's vectors.
3. ``sp``: Wieting et al.'s Table 4 protocol (128,000 sentences, SP 20k, 300-d and 1024-d, batches
   of 128): tokenisation on 1, 2 and all threads (ours, and sentencepiece's one batched call as the
   baseline), text to vector on the device and on the host's CPU, model only from host arrays, with
   the paper's GP100 rates (855,571 and 683,204 sentences/s) as data.

4. ``bags``: the same sentences through word and character-trigram averaging (300-d, vocabularies
   fitted on them): tokenisation on all host threads, text to vector on the host and on the device
   (batches of 128), the paper's Word and Trigram rows being GPU rates too.

``--quick`` shrinks every size (a CPU dry run of the script). Writes one JSON with provenance.
Book: chapter 5 (Word translation without parallel data).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import torch

from xsent_lib.base.neighbors import csls_knn, l2_normalize
from xsent_lib.base.runtime import pick_device
from xsent_lib.eval.crosslingual import word_translation
from xsent_lib.eval.speed import hardware
from xsent_lib.results.provenance import collect_provenance

PAPER_TABLE4_GP100 = {
    300: 855_571,
    1024: 683_204,
}  # Wieting et al. (2019), Table 4, SP (20k), sent/s
SECTIONS = ("csls", "infersent", "sp", "bags")


def timed(fn, dev: torch.device, reps: int = 3):
    """Median wall time of ``reps`` calls (after none: warm up before), all times, last result.

    Book: chapter 5 (Word translation without parallel data).
    """
    ts, out = [], None
    for _ in range(reps):
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = fn()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), ts, out


def bench_csls(dev: torch.device, refs: Path, quick: bool, tmp: Path) -> dict:
    """MUSE's CSLS evaluator against ours at 200k words.

    Book: chapter 5 (Word translation without parallel data).
    """
    rng = np.random.default_rng(1)
    n, d, q = (5000, 64, 500) if quick else (200_000, 300, 1500)
    src = rng.standard_normal((n, d), dtype=np.float32)
    tgt = src + (2.0 if quick else 3.2) * rng.standard_normal((n, d), dtype=np.float32)
    rows = rng.choice(2000 if quick else 15_000, size=q, replace=False)
    pairs = np.stack([rows, rows], 1)
    out: dict = {"n": n, "dim": d, "queries": q}

    def ours():
        return word_translation(src, tgt, pairs, methods=("csls",), ks=(1, 5, 10), device=dev)[
            "csls"
        ]

    def ours_float32():
        uq = np.unique(rows)
        _, idx = csls_knn(
            l2_normalize(src),
            l2_normalize(tgt),
            10,
            10,
            queries=uq,
            use_faiss=False,
            device=dev,
            precision="float32",
        )
        hit = idx == uq[:, None]
        return {f"p@{k}": 100 * float(hit[:, :k].any(1).mean()) for k in (1, 5, 10)}

    ours()
    t_o, ts_o, r_o = timed(ours, dev)
    t_f, ts_f, r_f = timed(ours_float32, dev, reps=1 if quick else 2)
    out["xsent_word_translation"] = {
        "seconds": t_o,
        "all": ts_o,
        "result": r_o,
        "precision": "auto",
    }
    out["xsent_csls_knn_float32"] = {"seconds": t_f, "all": ts_f, "result": r_f}
    muse_dir = refs / "ref" / "MUSE"
    if not (muse_dir / "src" / "evaluation" / "word_translation.py").is_file():
        out["muse"] = {"missing": f"{muse_dir}/src (run benchmarks/prepare_gpu_carry.py)"}
        return out
    sys.path.insert(0, str(muse_dir))
    from src.evaluation.word_translation import get_word_translation_accuracy

    dico = tmp / "dico.txt"
    dico.write_text("".join(f"s{i} t{i}\n" for i in rows))
    w2i_s, w2i_t = {f"s{i}": i for i in range(n)}, {f"t{i}": i for i in range(n)}
    e_s, e_t = torch.from_numpy(src).to(dev), torch.from_numpy(tgt).to(dev)

    def muse():
        r = get_word_translation_accuracy(
            "en", w2i_s, e_s, "fr", w2i_t, e_t, "csls_knn_10", str(dico)
        )
        return {k.replace("precision_at_", "p@"): float(v) for k, v in r}

    muse()
    t_m, ts_m, r_m = timed(muse, dev)
    out["muse"] = {"seconds": t_m, "all": ts_m, "result": r_m}
    out["speedup_vs_muse"] = t_m / t_o
    out["pk_identical_to_muse"] = all(abs(r_m[k] - r_o[k]) < 1e-9 for k in r_o)
    out["pk_identical_to_float32"] = r_o == r_f
    return out


def bench_infersent(dev: torch.device, refs: Path, quick: bool, tmp: Path) -> dict:
    """The release's encode against ours on the same weights.

    Book: chapter 3 (InferSent: using the released model).
    """
    from xsent_lib.encoders.infersent_format import load_infersent

    models_py = refs / "ref" / "InferSent" / "models.py"
    if not models_py.is_file():
        return {"missing": f"{models_py} (run benchmarks/prepare_gpu_carry.py)"}
    sys.path.insert(0, str(models_py.parent))
    from models import InferSent

    rng = np.random.default_rng(0)
    vocab, n, hidden = (2000, 600, 64) if quick else (60_000, 20_000, 2048)
    words = [f"w{i}" for i in range(vocab)]
    vecs = rng.standard_normal((vocab + 2, 300), dtype=np.float32) * 0.3
    word_vec = {w: vecs[i] for i, w in enumerate(words)} | {
        "<p>": vecs[vocab],
        "</p>": vecs[vocab + 1],
    }
    zipf = 1.0 / np.arange(1, vocab + 1) ** 1.05
    lens = np.clip(rng.lognormal(2.8, 0.5, n).astype(int), 3, 60)
    sents = [
        " ".join(words[j] for j in rng.choice(vocab, size=k, p=zipf / zipf.sum())) for k in lens
    ]
    torch.manual_seed(0)
    ref = InferSent(
        {
            "bsize": 128,
            "word_emb_dim": 300,
            "enc_lstm_dim": hidden,
            "pool_type": "max",
            "dpout_model": 0.0,
            "version": 2,
        }
    )
    ref.word_vec = word_vec
    ref = ref.to(dev).eval()
    pkl = tmp / "infersent2_random.pkl"
    torch.save({k: v.cpu() for k, v in ref.state_dict().items()}, pkl)
    ours = load_infersent(pkl, word_vec, version=2, tokenize=False)
    rows = []
    for bs in (128, 1024):
        ref.encode(sents[:256], bsize=bs, tokenize=False)
        t_ref, ts_ref, e_ref = timed(
            lambda: ref.encode(sents, bsize=bs, tokenize=False), dev, reps=2
        )
        rows.append(
            {
                "system": "InferSent models.py",
                "batch": bs,
                "precision": "float32",
                "seconds": t_ref,
                "all": ts_ref,
                "sent_per_s": n / t_ref,
            }
        )
        for prec in ("float32", "bfloat16"):
            ours.encode(sents[:256], batch_size=bs, device=dev, precision=prec)
            t, ts, e = timed(
                lambda: ours.encode(sents, batch_size=bs, device=dev, precision=prec), dev, reps=2
            )
            cos = np.sum(e * e_ref, 1) / (np.linalg.norm(e, axis=1) * np.linalg.norm(e_ref, axis=1))
            rows.append(
                {
                    "system": "xsent load_infersent",
                    "batch": bs,
                    "precision": prec,
                    "seconds": t,
                    "all": ts,
                    "sent_per_s": n / t,
                    "speedup_vs_ref_same_batch": t_ref / t,
                    "min_cos_to_ref": float(cos.min()),
                    "mean_cos_to_ref": float(cos.mean()),
                }
            )
    return {
        "vocab": vocab,
        "sentences": n,
        "hidden": hidden,
        "mean_len": float(lens.mean()),
        "rows": rows,
    }


def bench_sp(dev: torch.device, refs: Path, quick: bool) -> dict:
    """Wieting et al.'s Table 4 protocol, ours on the device and the host.

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    from xsent_lib.encoders.bag import BagOfVectorsEncoder
    from xsent_lib.text.pipeline import TextPipeline
    from xsent_lib.text.tokenizers import SentencePieceTokenizer, _flat_ids

    sp_dir = refs / "sp"
    if not (sp_dir / "sp20k.model").is_file():
        return {
            "missing": f"{sp_dir}/sp20k.model and sents.txt (run benchmarks/prepare_gpu_carry.py)"
        }
    sents = (
        (sp_dir / "sents.txt").read_text(encoding="utf-8").split("\n")[: 8000 if quick else 128_000]
    )
    tok = SentencePieceTokenizer(sp_dir / "sp20k.model")
    pipe = TextPipeline(tok, tok.vocab())
    cores = os.cpu_count() or 1
    n = len(sents)
    out: dict = {
        "sentences": n,
        "cpu_cores": cores,
        "paper_gp100_sent_per_s": PAPER_TABLE4_GP100,
        "rows": [],
    }

    def row(**kw):
        kw["sent_per_s"] = n / kw["seconds"]
        out["rows"].append(kw)
        print(json.dumps(kw), flush=True)

    cpu = torch.device("cpu")
    for threads in sorted({1, 2, cores}):
        torch.set_num_threads(threads)
        row(
            what="tokenise (ours: chunks in threads)",
            device="cpu",
            threads=threads,
            dim=None,
            batch=None,
            seconds=timed(lambda: pipe.encode_flat(sents), cpu)[0],
        )
        row(
            what="tokenise (one batched sentencepiece call)",
            device="cpu",
            threads=threads,
            dim=None,
            batch=None,
            seconds=timed(
                lambda: _flat_ids(tok._sp.encode(sents, out_type=int, num_threads=threads)), cpu
            )[0],
        )
    torch.set_num_threads(cores)
    flat, offsets = pipe.encode_flat(sents)
    out["tokens"] = int(len(flat))
    with torch.inference_mode():
        for dim in (300, 1024):
            torch.manual_seed(0)
            enc = BagOfVectorsEncoder(len(pipe.vocab), dim, pipeline=pipe).eval()
            row(
                what="text to vector",
                device="cpu",
                threads=cores,
                dim=dim,
                batch=None,
                seconds=timed(lambda: enc.encode(sents, device="cpu"), cpu)[0],
            )
            if dev.type == "cpu":
                continue
            for bs in (128, 8192):
                enc.encode(sents[:1024], batch_size=bs, device=dev)
                row(
                    what="text to vector",
                    device=str(dev),
                    threads=cores,
                    dim=dim,
                    batch=bs,
                    seconds=timed(lambda: enc.encode(sents, batch_size=bs, device=dev), dev)[0],
                    paper_gp100=PAPER_TABLE4_GP100[dim] if bs == 128 else None,
                )
                row(
                    what="model only (host arrays)",
                    device=str(dev),
                    threads=cores,
                    dim=dim,
                    batch=bs,
                    seconds=timed(lambda: enc.encode_csr(flat, offsets, bs, dev), dev)[0],
                )
            enc.to(cpu)
    return out


def bench_bags(dev: torch.device, refs: Path, quick: bool) -> dict:
    """Word and trigram averaging under Table 4's protocol, on the host and on the device.

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    from xsent_lib.encoders.bag import BagOfVectorsEncoder
    from xsent_lib.text.pipeline import TextPipeline
    from xsent_lib.text.tokenizers import CharTrigramTokenizer, WordTokenizer

    path = refs / "sp" / "sents.txt"
    if not path.is_file():
        return {"missing": f"{path} (run benchmarks/prepare_gpu_carry.py)"}
    sents = path.read_text(encoding="utf-8").split("\n")[: 8000 if quick else 128_000]
    n, cores, cpu = len(sents), os.cpu_count() or 1, torch.device("cpu")
    torch.set_num_threads(cores)
    out: dict = {"sentences": n, "cpu_cores": cores, "rows": []}
    for unit, tokenizer in (("word", WordTokenizer()), ("trigram", CharTrigramTokenizer())):
        t0 = time.perf_counter()
        pipe = TextPipeline.fit(sents, tokenizer)
        fit = time.perf_counter() - t0
        torch.manual_seed(0)
        enc = BagOfVectorsEncoder(len(pipe.vocab), 300, pipeline=pipe).eval()
        with torch.inference_mode():
            runs = {("tokenise", "cpu", None): (lambda: pipe.encode_flat(sents), cpu),
                    ("text to vector", "cpu", None): (lambda: enc.encode(sents, device="cpu"),
                                                      cpu)}
            if dev.type != "cpu":
                enc.encode(sents[:1024], batch_size=128, device=dev)
                runs[("text to vector", str(dev), 128)] = (
                    lambda: enc.encode(sents, batch_size=128, device=dev), dev)
            for (what, where, batch), (fn, on) in runs.items():
                row = {"unit": unit, "what": what, "device": where, "threads": cores,
                       "batch": batch, "vocab": len(pipe.vocab), "fit_seconds": fit,
                       "seconds": timed(fn, on, reps=2)[0]}
                row["sent_per_s"] = n / row["seconds"]
                out["rows"].append(row)
                print(json.dumps(row), flush=True)
            enc.to(cpu)
    return out


def main() -> None:
    """Run the chosen sections, write the record.

    Book: chapter 5 (Word translation without parallel data).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a CPU dry run of the script")
    ap.add_argument("--refs", type=Path, default=Path(".gl/gpu"))
    ap.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated subset of {SECTIONS}"
    )
    ap.add_argument("--out", type=Path, default=Path("_build/gpu/side_by_side_gpu.json"))
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    dev = pick_device(args.device)
    wanted = [s for s in args.only.split(",") if s]
    bad = set(wanted) - set(SECTIONS)
    if bad:
        raise SystemExit(f"--only takes {SECTIONS}, got {sorted(bad)}")
    tmp = args.out.parent / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    record: dict = {
        "hardware": hardware(dev),
        "quick": args.quick,
        "provenance": collect_provenance(
            {"quick": args.quick, "sections": wanted}, device=str(dev)
        ),
    }
    refs_json = args.refs / "refs.json"
    record["references"] = json.loads(refs_json.read_text()) if refs_json.is_file() else None
    for name in wanted:
        t0 = time.perf_counter()
        try:
            if name == "csls":
                record[name] = bench_csls(dev, args.refs, args.quick, tmp)
            elif name == "infersent":
                record[name] = bench_infersent(dev, args.refs, args.quick, tmp)
            elif name == "sp":
                record[name] = bench_sp(dev, args.refs, args.quick)
            else:
                record[name] = bench_bags(dev, args.refs, args.quick)
        except Exception:  # one section failing must not lose the others' numbers
            record[name] = {"error": traceback.format_exc()}
        record[name]["section_seconds"] = time.perf_counter() - t0
        print(name, json.dumps(record[name], default=str)[:2000], flush=True)
        args.out.write_text(json.dumps(record, indent=1, default=str))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
