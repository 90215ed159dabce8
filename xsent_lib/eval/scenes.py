"""COCO-style caption-image ranking on a stand-in: synthetic scenes as "images", their English
captions.

Book: chapter 3 (InferSent: caption-image retrieval).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.base.threads import single_thread
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.forms import Forms
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.eval.engine import Evaluation, batcher_from_encoder
from xsent_lib.eval.retrieval import RankingTask
from xsent_lib.train.nli import small_on_cpu

SCENE_ROLES: tuple[str, ...] = ("subj", "subj_adj", "subj_num", "verb", "neg", "obj", "obj_adj",
                                "obj_num", "pp", "adv")


def scene_features(forms: Forms, dim: int = 256, seed: int = 0) -> np.ndarray:
    """"Image" vectors of logical forms: who does what to whom, where, with which
    attributes, and no words.

    Each (role, value) of the main, coordinated and subordinate clauses (subject, its
    adjective and number, verb, polarity, object, its adjective and number, place, manner)
    has a fixed random N(0, 1/dim) vector (seeded by ``seed``, role and value, so the same
    concept in two roles gives two vectors); a scene is the ReLU of a fixed random linear
    map of their sum. This stands in for COCO's ResNet features: a description of the
    scene that no sentence encoder has seen.
    Book: chapter 3 (InferSent: caption-image retrieval).
    """
    if not isinstance(forms, Forms):
        raise TypeError(f"forms must be synthetic Forms, got {type(forms).__name__}.")
    if not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be a positive integer, got {dim!r}.")
    total = np.zeros((len(forms), dim), np.float64)
    for kind in ("main", "coord", "sub"):
        rows = np.asarray(getattr(forms, kind))
        present = np.flatnonzero(rows >= 0)
        for r, role in enumerate(SCENE_ROLES):
            values = np.asarray(getattr(forms.clauses, role))[rows[present]]
            if role in ("subj_num", "obj_num"):  # a number describes a noun that is there
                noun = np.asarray(getattr(forms.clauses, role.split("_")[0]))[rows[present]]
                values = np.where(noun >= 0, values, -1)
            used = values >= 0
            uniq, inverse = np.unique(values[used], return_inverse=True)
            table = np.zeros((0, dim))
            if uniq.size:
                rngs = (np.random.default_rng([seed, r, int(v)]) for v in uniq)
                table = np.stack([g.normal(0, dim**-0.5, dim) for g in rngs])
            np.add.at(total, present[used], table[inverse])
    mix = np.random.default_rng([seed, len(SCENE_ROLES)]).normal(0, dim**-0.5, (dim, dim))
    return np.maximum(total @ mix, 0.0).astype(np.float32)


def scene_ranking_task(world: SyntheticWorld, n_train: int, n_dev: int, n_test: int, dim: int = 256,
                       fold_size: int = 1000, seed: int = 0) -> RankingTask:
    """COCO-style ranking on the synthetic world: English captions vs :func:`scene_features`
    "images".

    One caption per scene (COCO has five); the test set is cut into folds of ``fold_size`` scenes
    (COCO: five folds of 1k images), or one fold when smaller.
    Book: chapter 3 (InferSent: caption-image retrieval).
    """
    splits = {}
    for split, n in (("train", n_train), ("dev", n_dev), ("test", n_test)):
        if n < 2:
            raise ValueError(f"the {split} split needs at least 2 scenes, got {n}.")
        forms = world.forms(n, "infersent-scenes", split)
        splits[split] = (world.render(forms, "en"), scene_features(forms, dim, seed), np.arange(n))
    return RankingTask(splits, name="scenes", n_folds=max(1, n_test // fold_size))


def evaluate_ranking(encoder: SentenceEncoder, task: RankingTask, seed: int = 1111,
                     device: str | torch.device = "auto") -> dict[str, Any]:
    """Learn the joint space on the frozen ``encoder``'s captions and report R@K / median rank both
    ways.

    Returns the task result plus ``row``: Table 3.8's columns (Caption = scene-to-caption retrieval,
    Image = caption-to-scene retrieval).
    Book: chapter 3 (InferSent: caption-image retrieval).
    """
    params = {"seed": seed, "device": str(pick_device(device)), "tokenized": False,
              "batch_size": 1024}
    with single_thread(small_on_cpu(encoder.output_dim // 2, device)):
        res = Evaluation(params, batcher_from_encoder(encoder, device=device)).eval(task)
    row = {}
    for side, direction in (("Caption", "item_to_query"), ("Image", "query_to_item")):
        for k in (1, 5, 10):
            row[f"{side} R@{k}"] = res[direction][f"r@{k}"]
        row[f"{side} Med r"] = res[direction]["medr"]
    return {**res, "row": row}
