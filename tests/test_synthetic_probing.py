"""The ten probing tasks: every label re-derived independently from the sentence, its tree or its form."""
from __future__ import annotations

import re

import numpy as np
import pytest

import xsent_lib.data.synthetic.probing as probing
from xsent_lib.data.synthetic import PROBING_TASKS, SyntheticWorld
from xsent_lib.data.synthetic.english import ENGLISH as E

SIZES = (96, 32, 32)


@pytest.fixture(scope="module")
def world():
    old = probing.REFERENCE_SIZE
    probing.REFERENCE_SIZE = 8_000  # the reference only ranks words and picks classes; smaller is faster
    yield SyntheticWorld(seed=1)
    probing.REFERENCE_SIZE = old


@pytest.fixture(scope="module")
def sets(world):
    return {t: world.probing(t, *SIZES) for t in PROBING_TASKS}


def words(s: str) -> list[str]:
    return [w for w in s.split() if w not in {",", "."}]


def tree_children(tree: str) -> list[str]:
    out, level = [], 0
    for m in re.finditer(r"\((\S+)|\)", tree):
        level += -1 if m.group(0) == ")" else 1
        if m.group(0) != ")" and level == 2:
            out.append(m.group(1))
    return out


def depth(tree: str) -> int:
    level = best = 0
    for ch in tree:
        level += (ch == "(") - (ch == ")")
        best = max(best, level)
    return best


def tags(tree: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"\((\S+) [^()\s]+\)", tree)]


def parse(tree: str):
    """S-expression to nested (label, children) tuples; a preterminal is (tag, word)."""
    toks = re.findall(r"\(|\)|[^()\s]+", tree)
    pos = 0

    def node():
        nonlocal pos
        pos += 1  # "("
        label = toks[pos]
        pos += 1
        kids = []
        while toks[pos] != ")":
            if toks[pos] == "(":
                kids.append(node())
            else:
                kids.append(toks[pos])
                pos += 1
        pos += 1
        return (label, kids)

    return node()


def main_finite_tag(tree: str) -> str:
    """Tag of the finite verb of the main clause: first preterminal of the root's (or first conjunct's) VP."""
    label, kids = parse(tree)
    if kids[0][0] == "S":
        kids = kids[0][1]
    vp = next(k for k in kids if k[0] == "VP")
    return vp[1][0][0]


def test_all_tasks_have_balanced_disjoint_splits_of_5_to_28_words(sets):
    assert set(sets) == set(PROBING_TASKS)
    for name, p in sets.items():
        assert (len(p.train), len(p.dev), len(p.test)) == SIZES
        for split in (p.train, p.dev, p.test):
            counts = np.bincount(split.labels, minlength=len(p.classes))
            assert counts.max() - counts.min() <= 1, name
            assert all(5 <= len(words(s)) <= 28 for s in split.sentences), name
        assert not set(p.train.sentences) & set(p.test.sentences), name
        assert not set(p.dev.sentences) & (set(p.test.sentences) | set(p.train.sentences)), name


def test_sentlen_is_the_length_bin(sets):
    p = sets["SentLen"]
    assert p.classes == ("5-8", "9-12", "13-16", "17-20", "21-24", "25-28")
    for s, y in zip(p.train.sentences, p.train.labels):
        lo, hi = map(int, p.classes[y].split("-"))
        assert lo <= len(words(s)) <= hi


def test_wc_sentence_contains_exactly_one_target_which_is_the_label(sets):
    p = sets["WC"]
    targets = set(p.classes)
    assert 100 <= len(targets) <= 1000 and len(targets) == len(p.classes)
    for s, y in zip(p.train.sentences, p.train.labels):
        hits = [w for w in s.split() if w in targets]
        assert hits == [p.classes[y]]


def test_treedepth_is_the_depth_of_the_bracketed_tree_and_length_is_uninformative(world, sets):
    p = sets["TreeDepth"]
    depths = [int(c) for c in p.classes]
    assert depths == list(range(depths[0], depths[0] + 8))
    trees = world.render(p.train.forms, "en", tree=True)
    assert [depth(t) for t in trees] == [depths[y] for y in p.train.labels]
    hist = np.stack([np.bincount([len(words(s)) for s, y in zip(p.train.sentences, p.train.labels) if y == c],
                                 minlength=29) for c in range(8)])
    assert (hist == hist[0]).all()  # every depth class has exactly the same length distribution


def test_topconst_is_the_sequence_below_s(world, sets):
    p = sets["TopConst"]
    assert "NP VP ." in p.classes and "S CC S ." in p.classes
    trees = world.render(p.train.forms, "en", tree=True)
    for t, y in zip(trees, p.train.labels):
        assert " ".join(tree_children(t)) == p.classes[y]


def test_bshift_differs_from_the_original_by_one_adjacent_swap(world, sets):
    p = sets["BShift"]
    original = world.render(p.train.forms, "en")
    for s, o, y, pos in zip(p.train.sentences, original, p.train.labels, p.train.meta["position"]):
        a, b = s.split(), o.split()
        if y == 0:
            assert s == o and pos == -1
            continue
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        assert diff == [pos, pos + 1] and a[pos] == b[pos + 1] and a[pos + 1] == b[pos]
        assert {a[pos], a[pos + 1]}.isdisjoint({",", "."})


def test_tense_is_the_main_verb_tense_with_disjoint_verbs(world, sets):
    p = sets["Tense"]
    assert p.classes == ("past", "present")
    f = p.train.forms
    assert (f.clauses.tense[f.main] == p.train.labels).all()
    trees = world.render(f, "en", tree=True)
    for t, y in zip(trees, p.train.labels):
        assert main_finite_tag(t) in (("VBD",) if y == 0 else ("VBZ", "VBP")), t
    lemmas = {s: set(getattr(p, s).forms.clauses.verb[getattr(p, s).forms.main]) for s in ("train", "dev", "test")}
    assert not lemmas["train"] & lemmas["test"] and not lemmas["dev"] & lemmas["test"]


@pytest.mark.parametrize("task,role", [("SubjNum", "subj"), ("ObjNum", "obj")])
def test_number_is_the_main_subject_or_object_number(world, sets, task, role):
    p = sets[task]
    f = p.train.forms
    noun = getattr(f.clauses, role)[f.main]
    num = getattr(f.clauses, f"{role}_num")[f.main]
    assert (num == p.train.labels).all() and (noun >= 0).all()
    for s, n, y in zip(p.train.sentences, noun, p.train.labels):
        form = E.plurals[n] if y == 1 else E.nouns[n]
        assert form in s.split()
    lemmas = {s: set(getattr(getattr(p, s).forms.clauses, role)[getattr(p, s).forms.main]) for s in ("train", "test")}
    assert not lemmas["train"] & lemmas["test"]


def test_somo_replaces_one_noun_or_verb_by_an_odd_word_of_the_same_tag(world, sets):
    p = sets["SOMO"]
    f = p.train.forms
    original = world.render(f, "en")
    trees = world.render(f, "en", tree=True)
    t = world.tables("en")
    nouns = {t.words[i] for i in t.noun.ravel()}
    verbs = {t.words[i] for i in t.verb[..., 2].ravel() if i >= 0}
    tag_of = {}
    for tree in trees:
        for tag, w in re.findall(r"\((\S+) ([^()\s]+)\)", tree):
            tag_of.setdefault(w, set()).add(tag)
    n_odd = 0
    for s, o, tree, y, pos, rep in zip(p.train.sentences, original, trees, p.train.labels, p.train.meta["position"],
                                       p.train.meta["replacement"]):
        a, b = s.split(), o.split()
        if y == 0:
            assert s == o
            continue
        n_odd += 1
        assert [i for i in range(len(a)) if a[i] != b[i]] == [pos] and a[pos] == rep
        old_tag = tags(tree)[pos]
        assert (b[pos] in nouns and rep in nouns) or (b[pos] in verbs and rep in verbs)
        if old_tag in ("NN", "NNS"):  # same number: the replacement's singular/plural status matches
            assert (rep in E.plurals) == (old_tag == "NNS")
        else:  # same inflection: base (VB/VBP), 3rd singular (VBZ) or past (VBD)
            forms = {"VB": E.verbs, "VBP": E.verbs, "VBZ": E.verbs_3sg, "VBD": E.verbs_past}[old_tag]
            assert rep in forms
    assert n_odd == SIZES[0] // 2
    reps = {s: set(getattr(p, s).meta["replacement"]) - {""} for s in ("train", "test")}
    assert not reps["train"] & reps["test"]


def test_somo_replacements_violate_the_verbs_selection(sets):
    p = sets["SOMO"]
    f = p.train.forms
    c, m = f.clauses, f.main
    for i in np.flatnonzero(p.train.labels == 1):
        rep = p.train.meta["replacement"][i]
        subj, verb, obj = c.subj[m[i]], c.verb[m[i]], c.obj[m[i]]
        if rep in E.nouns or rep in E.plurals:
            r = (E.nouns.index(rep) if rep in E.nouns else E.plurals.index(rep))
            role_ok = E.subj_ok[verb, r] if p.train.meta["original"][i] in (E.nouns[subj], E.plurals[subj]) \
                else E.obj_ok[verb, r]
            assert not role_ok
        else:
            v = next(k for k in range(len(E.verbs)) if rep in (E.verbs[k], E.verbs_3sg[k], E.verbs_past[k]))
            assert not (E.subj_ok[v, subj] and (obj < 0 or E.obj_ok[v, obj]))


def test_coordinv_swaps_the_two_clauses(world, sets):
    p = sets["CoordInv"]
    f = p.train.forms
    assert (f.coord >= 0).all() and (f.inverted == (p.train.labels == 1)).all()
    trees = world.render(f, "en", tree=True)
    straight = f.copy()
    straight.inverted[:] = False
    plain = world.render(straight, "en", tree=True)
    for t, u, y in zip(trees, plain, p.train.labels):
        s_t, s_u = _clauses(t), _clauses(u)
        assert s_t == (s_u[::-1] if y == 1 else s_u)


def _clauses(tree: str) -> list[str]:
    """The two S subtrees directly under the root S."""
    out, level, start = [], 0, None
    for i, ch in enumerate(tree):
        if ch == "(":
            level += 1
            if level == 2 and tree.startswith("(S ", i):
                start = i
        elif ch == ")":
            if level == 2 and start is not None:
                out.append(tree[start: i + 1])
                start = None
            level -= 1
    return out


def test_probing_rejects_unknown_tasks(world):
    with pytest.raises(ValueError, match="unknown probing task"):
        world.probing("Length", 4, 2, 2)


def test_empty_split_is_a_clear_error():
    from xsent_lib.data.synthetic import SyntheticWorld

    with pytest.raises(ValueError, match="at least 1"):
        SyntheticWorld(seed=0).probing("BShift", 20, 0, 0)
