"""The word tables of the synthetic world's English (see :mod:`xsent_lib.data.synthetic.english`,
which parses them into the lexicon and documents their format): nouns as an indented taxonomy, verbs
with their frames, adjectives and manner adverbs as antonym pairs, and the closed word classes.

Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

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
carry carries carried     subj=person obj=animal|child|food|container|toy|book|tool|\
instrument|garment m asym
lift lifts lifted         subj=person obj=animal|child|food|container|toy|book|tool|\
instrument|device m asym
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
build builds built        subj=person obj=vehicle|chair|table|desk|shelf|box|building|bridge|\
robot|kite m
paint paints painted      subj=person obj=object|building|bridge|picture m
repair repairs repaired   subj=person obj=vehicle|device|tool|instrument|chair|table|desk|lamp|\
shelf|robot m
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
visit visits visited      subj=person obj=person|building|park|garden|forest|lake|beach|city|\
village|farm|zoo|island m
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
                 "adult": ("man", "woman", "worker", "artist", "athlete", "relative", "king",
                           "queen", "prince",
                           "princess")}
TENSES = ("past", "present", "future")
GENDERS = "mfnp"
