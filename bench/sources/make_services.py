#!/usr/bin/env python3
"""The two services of the second-source bench, built from bench/match's fixtures.

make_services.py MATCH_DIR SEED

MATCH_DIR holds bench/match/make_fixtures.py's output: a catalog in Open Library dump format (each
present book's true work and editions, and near-miss works: companions, sequels, other subtitles,
the same title by another author, reused ISBNs), rows.ndjson.gz (half without ISBN) and labels.json.
Open Library is that catalog. Google Books (MATCH_DIR/googlebooks.json) has:
- about 85 % of the books Open Library lacks, each one volume with the book's title (its subtitle
  apart), authors and ISBN when its rows carry one: the books only Google Books has;
- about half of the present books, as another volume of the same book;
- every near-miss work of the catalog as a volume of its own (Google Books has near misses too),
  except the unrelated books to which the catalog gives another book's ISBN (Open Library's error);
and MATCH_DIR/truth.json maps each book to its Open Library work and its Google Books volume.
Deterministic for a seed; nothing is tuned to the code under test.
"""
import gzip
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from labelled_books import split_subtitle, strip_series  # noqa: E402

out, seed = sys.argv[1], int(sys.argv[2])


def dump(name):
    with gzip.open(f"{out}/{name}", "rt", encoding="utf-8") as f:
        return [json.loads(line.split("\t", 4)[4]) for line in f if line.strip()]


authors = {a["key"]: a["name"] for a in dump("authors.txt.gz")}
works = {w["key"]: w for w in dump("works.txt.gz")}
first_edition = {}
for edition in dump("editions.txt.gz"):
    for work in edition.get("works", []):
        first_edition.setdefault(work["key"], edition)
labels = json.load(open(f"{out}/labels.json", encoding="utf-8"))
with gzip.open(f"{out}/rows.ndjson.gz", "rt", encoding="utf-8") as f:
    rows = [json.loads(line) for line in f if line.strip()]

books = {}  # book → {"present", "work", "title", "authors", "isbn"}
for row, label in zip(rows, labels["rows"]):
    book = books.setdefault(label["book"], {"present": label["present"], "work": label["work"], "isbn": None,
                                            "title": row.get("titleBase") or strip_series(row.get("title") or ""),
                                            "authors": [row.get("author") or ""] + (row.get("additionalAuthors") or [])})
    book["isbn"] = book["isbn"] or row.get("isbn13")

volumes, truth = [], {}


def add_volume(title, names, isbn, subtitle=None):
    main, sub = split_subtitle(title) if subtitle is None else (title, subtitle)
    volume = {"id": f"gbv{len(volumes):05d}", "title": main, "subtitle": sub,
              "authors": [n for n in names if n.strip()], "isbn13": isbn}
    volumes.append(volume)
    return volume["id"]


def same_book_key(book):
    """Title words without a leading or trailing article, and the first author's surname: the
    real exports write one book as `The Peripheral` and `Peripheral, The`, which bench/match's
    grouping keeps apart. Such books share one volume, so Google Books cannot tell them apart either."""
    title = re.findall(r"\w+", split_subtitle(book["title"])[0].lower())
    while title and title[0] in ARTICLES:
        title = title[1:]
    while title and title[-1] in ARTICLES:
        title = title[:-1]
    author = book["authors"][0].lower()
    names = re.findall(r"\w+", author.split(",")[0])  # `Gibson, William` or `William Gibson`
    surname = names[-1] if names else ""
    return " ".join(title) + "|" + surname


ARTICLES = {"the", "a", "an", "der", "die", "das", "le", "la", "les", "el"}
volume_of = {}
for key, book in books.items():
    r = random.Random(f"{seed}|google|{key}")
    has = r.random() < (0.5 if book["present"] else 0.85)
    same = same_book_key(book)
    if same in volume_of:
        volume = volume_of[same]
    else:
        volume = add_volume(book["title"], book["authors"], book["isbn"]) if has and book["title"].strip() else None
        volume_of[same] = volume
    truth[key] = {"present": book["present"], "work": book["work"], "volume": volume}

true_works = {label["work"] for label in labels["rows"] if label["work"]}
kinds = labels["works"]
for key, work in works.items():
    # An ISBN Open Library files under another book is Open Library's error, not Google's.
    if key in true_works or kinds.get(key) == "isbn_conflict":
        continue
    # As its edition names it: a near miss is often the same main title with another subtitle.
    names = [authors.get(a["author"]["key"], "") for a in work.get("authors", [])]
    edition = first_edition.get(key, {})
    add_volume(edition.get("title", work["title"]), names, (edition.get("isbn_13") or [None])[0],
               edition.get("subtitle", ""))

json.dump({"volumes": volumes}, open(f"{out}/googlebooks.json", "w", encoding="utf-8"), ensure_ascii=False)
json.dump(truth, open(f"{out}/truth.json", "w", encoding="utf-8"))
only_google = sum(1 for t in truth.values() if not t["present"] and t["volume"])
print(f"services: Open Library {len(true_works)} books + {len(works) - len(true_works)} near-miss works; "
      f"Google Books {len(volumes)} volumes ({only_google} books only it has, "
      f"{sum(1 for t in truth.values() if not t['present'] and not t['volume'])} books neither has)", file=sys.stderr)
