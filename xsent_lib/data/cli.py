"""``xsent-data``: list the catalogue, fetch datasets into the cache, and show what the cache holds.

    xsent-data list [--profile book|full] [--kind bitext|...]
    xsent-data fetch [--profile book] [--chapter N] [--cache-dir DIR] [--force] [NAME ...]
    xsent-data status [--cache-dir DIR]
    xsent-data pack [--chapters N ...] [--profile gpu] --out FILE.tar.xz [--cache-dir D] [NAME ...]

``fetch`` with no names, profile or chapter fetches the ``book`` profile; it checks what is cached
(sizes and sha256 of the normalised files), rebuilds what is damaged, and first removes the work
folders of an interrupted fetch. ``status`` hashes every cached file again and marks a dataset whose
files lost their recorded size or sha256 DAMAGED. Exit status of ``fetch``: 0 when every requested
dataset is ready, 1 when some were lost (the report says which and why), 2 on a checksum mismatch;
of ``status``: 0, or 1 when a dataset is DAMAGED. A fetch waits for another fetch of the same cache
("waiting for another fetch (pid N)"), then finds its work done. An error that stops a command (a
cache folder that cannot be written, a file that cannot be read) is one line on stderr naming the
path, with exit status 1, never a traceback. ``pack`` writes the cached datasets that a profile's
runs of some chapters read into one archive, to carry to a machine with no network
(:mod:`xsent_lib.data.pack`).
Book: chapter 0 (Preface: how to run this book).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xsent_lib.data.cache import CacheLocationError, cache_status
from xsent_lib.data.catalogue import CATALOGUE, PROFILES
from xsent_lib.data.fetch import ChecksumError, fetch
from xsent_lib.data.pack import pack_datasets


def _mb(n: float) -> str:
    return f"{n / 1e6:8.1f} MB"


def _list(profile: str | None, kind: str | None) -> int:
    datasets = [d for d in CATALOGUE.datasets.values()
                if (profile is None or d.read_by(profile)) and (kind is None or d.kind == kind)]
    for d in datasets:
        size = sum(CATALOGUE.sources[s].size for s in d.sources)
        chapters = ",".join(map(str, d.chapters))
        print(f"{d.name:22s} {d.kind:11s} {'/'.join(d.profiles):15s} ch {chapters:14s} {_mb(size)} "
              f" {d.what_for}")
    sources = CATALOGUE.sources_of(datasets)
    print(f"{len(datasets)} datasets from {len(sources)} archives, "
          f"{sum(s.size for s in sources) / 1e6:.0f} MB to download")
    return 0


def _status(cache_dir: str | None) -> int:
    root, entries, raw_bytes = cache_status(cache_dir)
    print(f"data cache: {root}")
    if not entries:
        print("nothing cached yet: run `xsent-data fetch` (the book profile) or `xsent-data fetch "
              "NAME`.")
    for e in entries:
        counts = ", ".join(f"{k}={v}" for k, v in e.stats.items() if isinstance(v, int))
        state = "DAMAGED" if e.problem else "ready" if e.ready else "STALE"
        print(f"{e.name:22s} {e.kind:11s} {state:7s} {_mb(e.norm_bytes)}  {counts}")
        if e.problem:
            print(f"    {e.problem}: run `xsent-data fetch {e.name}` to rebuild it")
    norm = sum(e.norm_bytes for e in entries)
    print(f"normalised {norm / 1e6:.1f} MB, unpacked archives {raw_bytes / 1e6:.1f} MB")
    return 1 if any(e.problem for e in entries) else 0


def _fetch(names: list[str], profile: str | None, chapter: int | None, cache_dir: str | None,
           force: bool) -> int:
    try:
        report = fetch(names, profile=profile, chapter=chapter, cache_dir=cache_dir, force=force,
                       progress=lambda msg: print(msg, flush=True))
    except ChecksumError as exc:
        if exc.report is not None:
            print(exc.report)
        print(f"CHECKSUM MISMATCH:\n{exc}", file=sys.stderr)
        return 2
    print(report)
    return 0 if report.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xsent-data`` console script; returns the exit status.

    Book: chapter 0 (Preface: how to run this book).
    """
    parser = argparse.ArgumentParser(prog="xsent-data",
                                     description="Offline corpora for the xsent book.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="show the datasets of the catalogue")
    p_list.add_argument("--profile", choices=PROFILES[1:])
    p_list.add_argument("--kind", choices=sorted({d.kind for d in CATALOGUE.datasets.values()}))
    p_fetch = sub.add_parser("fetch", help="download, verify, unpack and normalise datasets")
    p_fetch.add_argument("names", nargs="*",
                         help="dataset (or source) names; see `xsent-data list`")
    p_fetch.add_argument("--profile", choices=PROFILES)
    p_fetch.add_argument("--chapter", type=int, help="only the datasets this chapter uses")
    p_fetch.add_argument("--cache-dir", help="cache root (default: $XSENT_DATA_CACHE or the user "
                                             "cache dir)")
    p_fetch.add_argument("--force", action="store_true", help="download and normalise again")
    p_status = sub.add_parser("status", help="show what the cache holds and its size; hash every "
                                             "file and "
                              "mark damaged datasets DAMAGED (exit status 1)")
    p_status.add_argument("--cache-dir")
    p_pack = sub.add_parser("pack", help="pack cached datasets of some chapters, to carry offline")
    p_pack.add_argument("names", nargs="*",
                        help="dataset names (a run's provenance lists those it read)")
    p_pack.add_argument("--chapters", type=int, nargs="+", default=[],
                        help="add every dataset the catalogue lists for these chapters")
    p_pack.add_argument("--profile", choices=PROFILES, default="gpu")
    p_pack.add_argument("--out", required=True, help="the archive to write (.tar.xz)")
    p_pack.add_argument("--cache-dir")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return _list(args.profile, args.kind)
        if args.command == "status":
            return _status(args.cache_dir)
        if args.command == "pack":
            made = pack_datasets(args.out, names=args.names, chapters=args.chapters,
                                 profile=args.profile, cache_dir=args.cache_dir)
            print(f"packed {len(made['datasets'])} datasets ({made['bytes'] / 1e6:.1f} MB) into "
                  f"{args.out} ({made['archive_bytes'] / 1e6:.1f} MB)")
            for name, why in made["left_out"].items():
                print(f"  left out {name}: {why}")
            return 0
        return _fetch(args.names, args.profile, args.chapter, args.cache_dir, args.force)
    except ValueError as exc:
        parser.error(str(exc))
    except (CacheLocationError, OSError) as exc:
        print(f"xsent-data: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
