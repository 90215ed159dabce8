"""Rendering of hand-built logical forms: exact English strings and trees, word order per typology, glosses."""
from __future__ import annotations

import re

import numpy as np
import pytest

import xsent_lib.data.synthetic.world as world_module
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.english import ENGLISH as E
from xsent_lib.data.synthetic.forms import FRONT_NONE, FRONT_PP, FRONT_SUB, Clauses, Forms
from xsent_lib.data.synthetic.render import decode_top, top_constituents, tree_depth
from xsent_lib.data.synthetic.typology import LANGUAGES

_FIELDS = Clauses.__dataclass_fields__


def clause(subj, verb, obj=None, *, tense=1, neg=0, subj_num=0, subj_def=1, subj_adj=None, obj_num=0, obj_def=0,
           obj_adj=None, adv=None, pp=None, prep="in", subj_pro=0, obj_pro=0, gap=0):
    """One clause row as a dict of scalars (words by name)."""
    row = {f: -1 for f in _FIELDS}
    row.update(subj=E.noun_id(subj), verb=E.verb_id(verb), obj=E.noun_id(obj) if obj else -1, tense=tense, neg=neg,
               subj_num=subj_num, subj_def=subj_def, subj_adj=E.adjective_id(subj_adj) if subj_adj else -1,
               obj_num=obj_num, obj_def=obj_def, obj_adj=E.adjective_id(obj_adj) if obj_adj else -1,
               adv=E.adverb_id(adv) if adv else -1, pp=E.noun_id(pp) if pp else -1,
               prep=E.prepositions.index(prep) if pp else -1, subj_pro=subj_pro, obj_pro=obj_pro, gap=gap)
    return row


def sentence(rows, main=0, coord=-1, conj=-1, sub=-1, sub_conj=-1, front=FRONT_NONE, inverted=False):
    """Forms of one sentence from clause rows (dicts; ``*_rel`` given as row indices)."""
    cols = {f: np.array([r[f] for r in rows], np.int64) for f in _FIELDS}
    one = lambda v: np.array([v], np.int64)  # noqa: E731
    return Forms(Clauses(**cols), one(main), one(coord), one(conj), one(sub), one(sub_conj), one(front), one(-1),
                 np.array([inverted]))


@pytest.fixture(scope="module")
def world():
    return SyntheticWorld(seed=0)


def en(world, forms):
    return world.render(forms, "en")[0]


def test_simple_clauses_render_as_english(world):
    assert en(world, sentence([clause("dog", "chase", "cat")])) == "the dog chases a cat ."
    assert en(world, sentence([clause("dog", "chase", "cat", tense=0, neg=1, subj_num=1, obj_num=1)])) == \
        "the dogs did not chase any cats ."
    old_man = sentence([clause("man", "sleep", tense=2, subj_def=0, subj_adj="old")])
    assert en(world, old_man) == "an old man will sleep ."
    assert en(world, sentence([clause("woman", "eat", "apple", neg=1, obj_def=1, adv="quickly")])) == \
        "the woman does not eat the apple quickly ."
    assert en(world, sentence([clause("child", "run", subj_num=1, subj_def=0, tense=0)])) == "children ran ."


def test_relative_clause_coordination_inversion_and_fronting(world):
    rel = clause("girl", "feed", "horse", obj_def=1, gap=1)
    main = clause("girl", "sing")
    main["subj_rel"] = 1
    assert en(world, sentence([main, rel])) == "the girl who feeds the horse sings ."
    first = clause("boy", "see", "dog", tense=0)
    second = clause("boy", "hug", "dog", tense=0, subj_pro=1, obj_def=1)
    f = sentence([first, second], coord=1, conj=0)
    assert en(world, f) == "the boy saw a dog and he hugged the dog ."
    f.inverted[:] = True
    assert en(world, f) == "he hugged the dog and the boy saw a dog ."
    f.conj[:] = 1
    assert en(world, f) == "he hugged the dog , but the boy saw a dog ."
    fronted = sentence([clause("cat", "sleep", pp="garden")], front=FRONT_PP)
    assert en(world, fronted) == "in the garden , the cat sleeps ."
    sub = clause("dog", "bark")
    assert en(world, sentence([clause("cat", "run"), sub], sub=1, sub_conj=0, front=FRONT_SUB)) == \
        "because the dog barks , the cat runs ."
    assert en(world, sentence([clause("cat", "run"), sub], sub=1, sub_conj=0)) == "the cat runs because the dog barks ."


def test_tree_is_penn_style_and_depth_matches_the_brackets(world):
    f = sentence([clause("dog", "chase", "cat")])
    assert world.render(f, "en", tree=True)[0] == \
        "(S (NP (DT the) (NN dog)) (VP (VBZ chases) (NP (DT a) (NN cat))) (. .))"
    neg = sentence([clause("dog", "chase", "cat", neg=1, tense=2)])
    assert world.render(neg, "en", tree=True)[0] == \
        "(S (NP (DT the) (NN dog)) (VP (MD will) (RB not) (VP (VB chase) (NP (DT any) (NN cat)))) (. .))"
    forms = world.forms(300, "render-test")
    trees = world.render(forms, "en", tree=True)
    ids = world.ids(forms, "en", tree=True)
    r = world.renderer("en")
    depth = tree_depth(ids, r.n_words)
    for t, d in zip(trees, depth):
        level, deepest = 0, 0
        for ch in t:
            level += (ch == "(") - (ch == ")")
            deepest = max(deepest, level)
        assert deepest == d
    # the leaves of the tree are the sentence
    sents = world.render(forms, "en")
    leaves = [" ".join(re.findall(r"\(\S+ ([^()\s]+)\)", t)) for t in trees]
    assert leaves == sents
    # top constituents are the labels of S's children
    tops = [decode_top(c) for c in top_constituents(ids, r.n_words)]
    assert tops[0] == " ".join(_children_labels(trees[0]))
    assert all(t == " ".join(_children_labels(tree)) for t, tree in zip(tops, trees))


def _children_labels(tree: str) -> list[str]:
    out, level = [], 0
    for m in re.finditer(r"\((\S+)|\)", tree):
        if m.group(0) == ")":
            level -= 1
        else:
            level += 1
            if level == 2:
                out.append(m.group(1))
    return out


def _positions(world, lang, f, tokens):
    words = world.ids(f, lang)[0].tolist()
    return [words.index(t) for t in tokens]


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_word_order_follows_the_typology(world, lang):
    t = world.tables(lang)
    typ = world.typology(lang)
    f = sentence([clause("dog", "chase", "cat", subj_adj="big", pp="garden")])
    c = f.clauses
    s_tok, o_tok = t.noun[c.subj[0], 0, 0], t.noun[c.obj[0], 0, 1]
    v_tok = t.verb[c.verb[0], 1, 0, 0, 2]
    s, v, o = _positions(world, lang, f, [s_tok, v_tok, o_tok])
    expected = {"SVO": s < v < o, "SOV": s < o < v, "VSO": v < s < o}[typ.order]
    assert expected, (lang, world.render(f, lang))
    a = _positions(world, lang, f, [t.adj[c.subj_adj[0], 0]])[0]
    assert (a < s) == (typ.adjective == "before")
    p, place = _positions(world, lang, f, [t.prep[c.prep[0]], t.noun[c.pp[0], 0, 2]])
    assert (p < place) == (typ.adposition == "pre")
    neg = sentence([clause("dog", "chase", "cat", neg=1)])
    words = world.ids(neg, lang)[0].tolist()
    slots = t.verb[c.verb[0], 1, 0, 1]
    if typ.negation == "suffix":
        assert slots[1] < 0 and slots[3] < 0 and t.words[slots[2]] != t.words[v_tok]
    else:
        assert any(x >= 0 and x in words for x in (slots[0], slots[1], slots[3]))


@pytest.mark.parametrize("lang", ["en", "xa", "xb", "xc"])
def test_relative_clause_side_follows_the_typology(world, lang):
    rel = clause("girl", "feed", "horse", obj_def=1, gap=1)
    main = clause("girl", "sing")
    main["subj_rel"] = 1
    f = sentence([main, rel])
    t = world.tables(lang)
    tokens = [t.noun[f.clauses.subj[0], 0, 0], t.verb[f.clauses.verb[1], 1, 0, 0, 2]]
    head, rel_verb = _positions(world, lang, f, tokens)
    assert (rel_verb > head) == (world.typology(lang).relative == "after")


def test_languages_differ_and_glosses_map_to_english(world):
    forms = world.forms(50, "render-test")
    outs = {lang: world.render(forms, lang) for lang in world.languages}
    for a in outs:
        for b in outs:
            if a < b:
                assert sum(x == y for x, y in zip(outs[a], outs[b])) == 0
    gloss = world.render(forms, "xb", gloss=True)
    # every gloss token of a content word names an English lemma of the same form
    assert all(len(g.split()) == len(s.split()) for g, s in zip(gloss, outs["xb"]))
    lemma_words = set(E.nouns) | set(E.verbs) | set(E.adjectives) | set(E.adverbs)
    lemmas = {tok.split(".")[0] for g in gloss for tok in g.split()}
    assert lemmas & lemma_words
    f = sentence([clause("dog", "chase", "cat", tense=0, subj_num=1)])
    assert world.render(f, "xb", gloss=True)[0] == "dog.PL.NOM cat.ACC chase.PST ."


def test_packed_unpacked_and_chunked_rendering_agree(world, monkeypatch):
    forms = world.forms(40, "render-test")
    r = world.renderer("xd")
    loose, packed = r.ids(forms, packed=False), r.ids(forms)
    assert [row[row >= 0].tolist() for row in loose] == [row[row >= 0].tolist() for row in packed]
    assert all((row[: (row >= 0).sum()] >= 0).all() for row in packed)  # left-justified
    assert packed.shape[1] == (packed >= 0).sum(1).max() < loose.shape[1]
    whole = world.render(forms, "xa")
    monkeypatch.setattr(world_module, "RENDER_CHUNK", 7)
    assert world.render(forms, "xa") == whole
