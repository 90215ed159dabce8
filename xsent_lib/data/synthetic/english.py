"""The English lexicon of the synthetic world: real words with plurals, hypernyms, antonyms and verb frames.

Every other language of the world is a seeded pseudo-word relabelling of these concepts, so this file fixes
what the world can talk about. The tables are plain text parsed once at import:

* nouns form a taxonomy by indentation (``poodle`` under ``dog`` under ``animal``); ``pl=`` gives an irregular
  plural, ``g=`` the pronoun gender (m, f, n; ``p`` = a person of unspecified gender, never pronominalised),
  ``prep=`` the prepositions a place takes, ``*`` marks a node whose children are mutually exclusive
  (a poodle is never a beagle; a teacher may be a woman, so ``person`` has no ``*``);
* verbs give base, 3rd-singular and past forms, the noun classes allowed as subject and object (taxonomy node
  names joined by ``|``; ``animate`` = animal|person, ``thing`` = food|object|plant, ``concrete`` = both,
  ``adult`` = grown-up persons),
  ``m`` (takes manner adverbs), ``sym`` / ``asym`` (x V y entails / excludes y V x in the same event) and
  ``hyp=`` a verb it entails (``devour`` -> ``eat``);
* adjectives and manner adverbs come as antonym pairs ``big/small`` (or alone) with the classes they modify.

Words that would be homographs across parts of speech (``saw``, ``watch``, ``fly``, ``cook``) are left out so
that every surface string has one part of speech. Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NOUNS = """
animal g=n *
  dog *
    poodle
    terrier
    beagle
    collie
    bulldog
  cat
  bird *
    sparrow
    robin
    eagle
    parrot
    owl
    crow
    pigeon
    swan
  insect *
    ant
    bee
    beetle
    butterfly pl=butterflies
  horse
  rabbit
  mouse pl=mice
  fox
  wolf pl=wolves
  bear
  lion
  tiger
  elephant
  monkey
  goat
  cow
  pig
  donkey
  frog
  snake
  turtle
person pl=people g=p
  child pl=children
    boy g=m
    girl g=f
    baby
  man pl=men g=m
  woman pl=women g=f
  relative
    mother g=f
    father g=m
    sister g=f
    brother g=m
    aunt g=f
    uncle g=m
    grandmother g=f
    grandfather g=m
  worker
    teacher
    doctor
    nurse
    farmer
    baker
    pilot
    soldier
    driver
    sailor
    hunter
    fisherman pl=fishermen g=m
    waiter g=m
    waitress g=f
    lawyer
    clerk
  artist
    painter
    singer
    dancer
    musician
      guitarist
      pianist
      drummer
      violinist
  athlete
    runner
    swimmer
    boxer
    cyclist
  student
  king g=m
  queen g=f
  prince g=m
  princess g=f
  thief pl=thieves
  stranger
  tourist
  guest
  neighbor
food g=n
  fruit *
    apple
    banana
    orange
    pear
    grape
    lemon
    cherry
    peach
    plum
    mango pl=mangoes
  vegetable *
    carrot
    potato pl=potatoes
    onion
    tomato pl=tomatoes
    cabbage
    bean
  dessert *
    cake
    cookie
    pie
    pudding
  meal *
    sandwich
    pizza
    salad
    omelet
  loaf pl=loaves
  egg
  sausage
  nut
  candy
object g=n
  vehicle *
    car
    truck
    bus
    bicycle
    boat
    train
    tractor
    motorcycle
    van
    taxi
  tool *
    hammer
    knife pl=knives
    shovel
    axe
    drill
    rake
    wrench
  instrument *
    guitar
    piano
    drum
    violin
    flute
    trumpet
    harp
  container *
    box
    bag
    basket
    bottle
    cup
    jar
    bucket
    bowl
  toy *
    ball
    doll
    kite
    puzzle
    robot
    balloon
  book *
    novel
    dictionary
    diary
    atlas
    cookbook
  garment *
    shirt
    coat
    hat
    dress
    scarf pl=scarves
    jacket
    boot
  device *
    phone
    camera
    computer
    radio
    clock
  chair
  table
  sofa
  desk
  lamp
  shelf pl=shelves
  letter
  key
  map
  rope
  umbrella
  ladder
  picture
  flag
  ring
  coin
plant g=n
  flower *
    rose
    tulip
    daisy
    lily
  tree *
    oak
    pine
    willow
    maple
  bush
place g=n prep=near
  room * prep=in
    kitchen
    bedroom
    bathroom
    classroom
    office
  building * prep=in|behind
    house
    school prep=at|in
    church
    hospital
    library
    museum
    station prep=at
    shop
    restaurant
    hotel
    bakery
  park prep=in
  garden prep=in
  forest prep=in
  river prep=near
  lake prep=near
  beach prep=on|at
  field prep=in
  street prep=on
  market prep=at
  city prep=in
  village prep=in
  farm prep=on|at
  mountain prep=on
  island prep=on
  bridge prep=on|under
  zoo prep=at
"""

VERBS = """
run runs ran              subj=animate m
sprint sprints sprinted   subj=animate m hyp=run
walk walks walked         subj=animate m
stroll strolls strolled   subj=person m hyp=walk
sleep sleeps slept        subj=animate m
jump jumps jumped         subj=animate m
swim swims swam           subj=animate m
dance dances danced       subj=person m
sing sings sang           subj=person|bird m
laugh laughs laughed      subj=person m
cry cries cried           subj=person m
smile smiles smiled       subj=person m
wait waits waited         subj=animate m
work works worked         subj=person m
speak speaks spoke        subj=person m
whisper whispers whispered subj=person m hyp=speak
bark barks barked         subj=dog m
roar roars roared         subj=lion|tiger|bear m
crawl crawls crawled      subj=insect|snake|turtle|baby m
arrive arrives arrived    subj=animate m
fall falls fell           subj=concrete
roll rolls rolled         subj=ball|vehicle|fruit|vegetable|egg|nut
break breaks broke        subj=container|toy|device|tool|instrument
float floats floated      subj=boat|balloon|bottle|ball
grow grows grew           subj=plant|animal|child
bloom blooms bloomed      subj=flower|tree|bush
chase chases chased       subj=animate obj=animate m
follow follows followed   subj=animate obj=animate m asym
lead leads led            subj=person obj=animate m asym
carry carries carried     subj=person obj=animal|child|food|container|toy|book|tool|instrument|garment m asym
lift lifts lifted         subj=person obj=animal|child|food|container|toy|book|tool|instrument|device m asym
meet meets met            subj=person obj=person m sym
fight fights fought       subj=animate obj=animate m sym
marry marries married     subj=adult obj=adult sym
hug hugs hugged           subj=person obj=animate m
kiss kisses kissed        subj=person obj=person|dog|cat|baby m
push pushes pushed        subj=animate obj=animate|vehicle|container|toy|chair|table|sofa|desk m
pull pulls pulled         subj=animate obj=animate|vehicle|container|toy|rope|chair|table m
kick kicks kicked         subj=animate obj=animate|ball|container m
see sees saw              subj=animate obj=concrete|place
watch watches watched     subj=animate obj=animate|vehicle|picture|kite|balloon m
hear hears heard          subj=animate obj=animate|instrument|device
notice notices noticed    subj=animate obj=concrete
find finds found          subj=animate obj=concrete m
lose loses lost           subj=person obj=animal|object
hide hides hid            subj=animate obj=food|object m
eat eats ate              subj=animate obj=food m
devour devours devoured   subj=animate obj=food m hyp=eat
nibble nibbles nibbled    subj=animate obj=food m hyp=eat
taste tastes tasted       subj=person obj=food m
bake bakes baked          subj=person obj=loaf|dessert|pizza m
buy buys bought           subj=person obj=food|object|flower|animal m
sell sells sold           subj=person obj=food|object|flower|animal m
steal steals stole        subj=person obj=food|object|animal m
build builds built        subj=person obj=vehicle|chair|table|desk|shelf|box|building|bridge|robot|kite m
paint paints painted      subj=person obj=object|building|bridge|picture m
repair repairs repaired   subj=person obj=vehicle|device|tool|instrument|chair|table|desk|lamp|shelf|robot m
wash washes washed        subj=person obj=animal|child|food|container|garment|vehicle|car m
scrub scrubs scrubbed   subj=person obj=object|room|building m
open opens opened         subj=person obj=container|book|letter|umbrella m
throw throws threw        subj=person obj=toy|food|container|key|coin|ring m
catch catches caught      subj=animate obj=animal|toy|food|key|coin m
drop drops dropped        subj=person obj=food|object m
hold holds held           subj=person obj=concrete m
bite bites bit            subj=animal obj=animate|food|toy|boot m
feed feeds fed            subj=person obj=animate m
teach teaches taught      subj=person obj=person m
help helps helped         subj=person obj=animate m
call calls called         subj=person obj=animate m
visit visits visited      subj=person obj=person|building|park|garden|forest|lake|beach|city|village|farm|zoo|island m
love loves loved          subj=animate obj=concrete|place
like likes liked          subj=animate obj=concrete|place
hate hates hated          subj=animate obj=concrete|place
want wants wanted         subj=animate obj=concrete
read reads read           subj=person obj=book|letter|map m
write writes wrote        subj=person obj=letter|novel|diary|book m
draw draws drew           subj=person obj=animal|person|object|plant|place|picture|map m
play plays played         subj=person obj=instrument|ball|puzzle m
drive drives drove        subj=person obj=car|truck|bus|tractor|van|taxi|motorcycle m
ride rides rode           subj=person obj=horse|donkey|bicycle|motorcycle|train|bus|boat m
climb climbs climbed      subj=animate obj=tree|mountain|ladder|building m
pick picks picked         subj=person obj=fruit|flower|vegetable m
smell smells smelled      subj=animate obj=food|flower|animal m
enter enters entered      subj=animate obj=building|room|forest|garden|park|city|village m
leave leaves left         subj=animate obj=building|room|forest|garden|park|city|village|island m
wear wears wore           subj=person obj=garment|ring m
"""

ADJECTIVES = """
big/small           concrete|place
tall/short          person|tree|building
young/old           animate
happy/sad           animate
angry/calm          animate
friendly/hostile    animate
brave/timid         animate
strong/weak         animate
clever/foolish      animate
rich/poor           person
kind/cruel          person
loud/quiet          animate|instrument|vehicle|place
fast/slow           animate|vehicle
heavy/light         concrete
clean/dirty         animal|object|place
wet/dry             animal|object|place
hot/cold            meal|dessert|loaf|place
fresh/rotten        fruit|vegetable|egg|loaf
sweet/sour          fruit|dessert|candy
cheap/expensive     object|food|flower
modern/ancient      object|building|bridge|city
shiny/dull          object
empty/full          container
soft/hard           loaf|dessert|toy|garment|sofa|fruit
beautiful/ugly      concrete|place
famous/unknown      person|place|book|picture
wide/narrow         river|street|bridge
deep/shallow        river|lake|bowl
safe/dangerous      place|animal|tool
hungry              animate
sleepy              animate
busy                person|street|place
red                 object|flower|fruit|bird
blue                object|flower|bird
green               object|fruit|vegetable|tree
yellow              object|flower|fruit|bird
white               animal|object|flower
black               animal|object
brown               animal|object|loaf
"""

ADVERBS = """
quickly/slowly          animate
loudly/quietly          animate
happily/sadly           animate
carefully/carelessly    person
gently/roughly          animate
calmly/nervously        animate
eagerly/reluctantly     animate
politely/rudely         person
patiently/impatiently   animate
"""

# time adverbs with the tenses they allow (0 past, 1 present, 2 future)
TIME_ADVERBS = (("yesterday", (0,)), ("earlier", (0,)), ("today", (0, 1, 2)), ("now", (1,)),
                ("tomorrow", (2,)), ("soon", (2,)))
DISCOURSE_ADVERBS = ("then", "later", "afterwards", "meanwhile", "suddenly", "finally")
PREPOSITIONS = ("in", "at", "near", "on", "behind", "under")
CONJUNCTIONS = ("and", "but")
SUBORDINATORS = ("because", "when", "after")
CLASS_ALIASES = {"animate": ("animal", "person"), "thing": ("food", "object", "plant"),
                 "concrete": ("animal", "person", "food", "object", "plant"),
                 "adult": ("man", "woman", "worker", "artist", "athlete", "relative", "king", "queen", "prince",
                           "princess")}
TENSES = ("past", "present", "future")
GENDERS = "mfnp"


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


@dataclass(frozen=True)
class EnglishLexicon:
    """The parsed English tables; ids index every array (noun id, verb id, adjective id, adverb id).

    ``noun_parent[i]`` is -1 for a root; ``noun_ancestors[i, j]`` says whether j is i or one of its ancestors;
    ``subj_ok[v, i]`` / ``obj_ok[v, i]`` whether noun i may be the subject / object of verb v;
    ``adj_ok[a, i]`` whether adjective a may modify noun i; ``adv_ok[r, i]`` whether manner adverb r may describe
    an action of subject i; ``prep_ok[p, i]`` whether preposition p may head a PP with place i.
    Book: chapter 1 (Data: the synthetic world).
    """

    nouns: tuple[str, ...]
    plurals: tuple[str, ...]
    noun_parent: np.ndarray
    noun_depth: np.ndarray
    noun_gender: np.ndarray
    noun_root: np.ndarray
    noun_disjoint: np.ndarray
    noun_ancestors: np.ndarray
    is_place: np.ndarray
    prep_ok: np.ndarray
    verbs: tuple[str, ...]
    verbs_3sg: tuple[str, ...]
    verbs_past: tuple[str, ...]
    transitive: np.ndarray
    manner: np.ndarray
    symmetric: np.ndarray
    asymmetric: np.ndarray
    verb_hypernym: np.ndarray
    subj_ok: np.ndarray
    obj_ok: np.ndarray
    adjectives: tuple[str, ...]
    adj_antonym: np.ndarray
    adj_ok: np.ndarray
    adverbs: tuple[str, ...]
    adv_antonym: np.ndarray
    adv_ok: np.ndarray
    time_adverbs: tuple[str, ...]
    time_ok: np.ndarray
    discourse_adverbs: tuple[str, ...]
    prepositions: tuple[str, ...]
    conjunctions: tuple[str, ...]
    subordinators: tuple[str, ...]

    def noun_id(self, word: str) -> int:
        """Id of a noun given its singular form. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.nouns, word, "noun")

    def verb_id(self, word: str) -> int:
        """Id of a verb given its base form. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.verbs, word, "verb")

    def adjective_id(self, word: str) -> int:
        """Id of an adjective. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.adjectives, word, "adjective")

    def adverb_id(self, word: str) -> int:
        """Id of a manner adverb. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.adverbs, word, "manner adverb")


def _index(names: tuple[str, ...], word: str, what: str) -> int:
    try:
        return names.index(word)
    except ValueError:
        raise ValueError(f"{word!r} is not a {what} of the synthetic English lexicon; "
                         f"see xsent_lib/data/synthetic/english.py for the word list.") from None


def _classes(spec: str, node_of: dict[str, int], ancestors: np.ndarray) -> np.ndarray:
    """Boolean mask over nouns: descendants (or self) of any node named in ``spec``."""
    mask = np.zeros(ancestors.shape[0], bool)
    for name in spec.split("|"):
        for node in CLASS_ALIASES.get(name, (name,)):
            if node not in node_of:
                raise KeyError(f"class {node!r} in the English lexicon names no noun")
            mask |= ancestors[:, node_of[node]]
    return mask


def _parse_nouns() -> tuple:
    words, plurals, parent, gender, disjoint, preps = [], [], [], [], [], []
    stack: list[tuple[int, int]] = []  # (indent, id)
    for line in NOUNS.strip("\n").splitlines():
        indent = (len(line) - len(line.lstrip())) // 2
        toks = line.split()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        par = stack[-1][1] if stack else -1
        opts = dict(t.split("=") for t in toks[1:] if "=" in t)
        words.append(toks[0])
        plurals.append(opts.get("pl", _plural(toks[0])))
        parent.append(par)
        gender.append(opts.get("g", gender[par] if par >= 0 else "n"))
        disjoint.append("*" in toks[1:])
        preps.append(opts["prep"].split("|") if "prep" in opts else (preps[par] if par >= 0 else []))
        stack.append((indent, len(words) - 1))
    return words, plurals, parent, gender, disjoint, preps


def _pairs(table: str) -> tuple[list[str], list[int], list[str]]:
    words, antonym, classes = [], [], []
    for line in table.strip("\n").splitlines():
        pair, spec = line.split()
        names = pair.split("/")
        base = len(words)
        for k, w in enumerate(names):
            words.append(w)
            antonym.append(base + 1 - k if len(names) == 2 else -1)
            classes.append(spec)
    return words, antonym, classes


def build_english() -> EnglishLexicon:
    """Parse the tables into an :class:`EnglishLexicon` and check its invariants.

    Book: chapter 1 (Data: the synthetic world).
    """
    words, plurals, parent, gender, disjoint, preps = _parse_nouns()
    n = len(words)
    par = np.array(parent, np.int64)
    anc = np.eye(n, dtype=bool)
    depth = np.zeros(n, np.int64)
    for i in range(n):
        j = par[i]
        while j >= 0:
            anc[i, j] = True
            depth[i] += 1
            j = par[j]
    root = np.array([np.flatnonzero(anc[i] & (par < 0))[0] for i in range(n)])
    node_of = {w: i for i, w in enumerate(words)}
    is_place = anc[:, node_of["place"]]
    prep_ok = np.array([[p in preps[i] for i in range(n)] for p in PREPOSITIONS]) & is_place

    vb, v3, vp, subj, obj, trans, man, sym, asym, hyp = [], [], [], [], [], [], [], [], [], []
    for line in VERBS.strip("\n").splitlines():
        toks = line.split()
        opts = dict(t.split("=") for t in toks[3:] if "=" in t)
        flags = {t for t in toks[3:] if "=" not in t}
        vb.append(toks[0]); v3.append(toks[1]); vp.append(toks[2])
        subj.append(_classes(opts["subj"], node_of, anc) & ~is_place)
        trans.append("obj" in opts)
        obj.append(_classes(opts["obj"], node_of, anc) if "obj" in opts else np.zeros(n, bool))
        man.append("m" in flags); sym.append("sym" in flags); asym.append("asym" in flags)
        hyp.append(opts.get("hyp", ""))
    verb_hyp = np.array([vb.index(h) if h else -1 for h in hyp])

    adjs, adj_ant, adj_cls = _pairs(ADJECTIVES)
    advs, adv_ant, adv_cls = _pairs(ADVERBS)
    time_ok = np.array([[t in ok for t in range(3)] for _, ok in TIME_ADVERBS]).T  # (tense, adverb)
    lex = EnglishLexicon(
        nouns=tuple(words), plurals=tuple(plurals), noun_parent=par, noun_depth=depth,
        noun_gender=np.array([GENDERS.index(g) for g in gender]), noun_root=root,
        noun_disjoint=np.array(disjoint), noun_ancestors=anc, is_place=is_place, prep_ok=prep_ok,
        verbs=tuple(vb), verbs_3sg=tuple(v3), verbs_past=tuple(vp), transitive=np.array(trans),
        manner=np.array(man), symmetric=np.array(sym), asymmetric=np.array(asym), verb_hypernym=verb_hyp,
        subj_ok=np.array(subj), obj_ok=np.array(obj),
        adjectives=tuple(adjs), adj_antonym=np.array(adj_ant),
        adj_ok=np.array([_classes(c, node_of, anc) for c in adj_cls]),
        adverbs=tuple(advs), adv_antonym=np.array(adv_ant),
        adv_ok=np.array([_classes(c, node_of, anc) for c in adv_cls]),
        time_adverbs=tuple(w for w, _ in TIME_ADVERBS), time_ok=time_ok,
        discourse_adverbs=DISCOURSE_ADVERBS, prepositions=PREPOSITIONS,
        conjunctions=CONJUNCTIONS, subordinators=SUBORDINATORS,
    )
    _check(lex)
    return lex


def _check(lex: EnglishLexicon) -> None:
    """Every surface string has one part of speech; every verb has subjects; hypernym verbs agree in frame."""
    pos: dict[str, str] = {}
    groups = {"noun": lex.nouns + lex.plurals, "verb": lex.verbs + lex.verbs_3sg + lex.verbs_past,
              "adj": lex.adjectives, "adv": lex.adverbs + lex.time_adverbs + lex.discourse_adverbs,
              "function": lex.prepositions + lex.conjunctions + lex.subordinators}
    for tag, ws in groups.items():
        for w in ws:
            if pos.setdefault(w, tag) != tag:
                raise AssertionError(f"English lexicon: {w!r} is both {pos[w]} and {tag}")
    if len(set(lex.nouns)) != len(lex.nouns) or len(set(lex.verbs)) != len(lex.verbs):
        raise AssertionError("English lexicon: duplicate lemma")
    if not lex.subj_ok.any(1).all() or not (lex.obj_ok.any(1) == lex.transitive).all():
        raise AssertionError("English lexicon: a verb has no possible subject or object")
    h = lex.verb_hypernym
    if ((h >= 0) & (lex.transitive != lex.transitive[np.maximum(h, 0)])).any():
        raise AssertionError("English lexicon: a verb and its hypernym differ in transitivity")


ENGLISH = build_english()
