#!/usr/bin/env python3
"""Synthetic Open Library dump for the lookup benchmark, and matching import rows.

make_catalog.py OUT_DIR EDITIONS ROWS [ISBN_SHARE]  writes OUT_DIR/editions.txt.gz, works.txt.gz,
authors.txt.gz (Open Library's 5-column layout, edition JSON shaped like the real dump, ~0.5 KB per
line) and OUT_DIR/rows.ndjson.gz: ROWS records as dedupe hands them to lookup — ISBN_SHARE (default
0.5, issue 12's mix) with an ISBN in the catalog, 10 % with an ISBN it lacks (falls back to search),
the rest without ISBN (title/author search). ISBN_SHARE 0.7 gives the mix measured before issue 12.
Deterministic (seeded).
"""
import gzip
import json
import random
import sys

out, editions_count, rows_count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
isbn_share = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
rng = random.Random(4)
words = ("shadow river glass winter garden night silver house crown empire storm letter island stone "
         "fire moon city forest song daughter king ocean mirror secret bridge tower season wind paper "
         "iron golden lost last first dark bright quiet hidden broken wild long little endless").split()
first = "Anna Ben Clara David Elena Farid Grace Hugo Ines Jonas Kai Lena Marco Nina Omar Paula Rosa Sami Tara Uma".split()
last = "Adler Brandt Costa Duarte Engel Fischer Gomez Hahn Ito Jansen Kowalski Lund Moreau Novak Ortiz Petrov Quinn Rossi Sato Weber".split()
authors_count = max(1, editions_count // 8)
works_count = max(1, editions_count // 2)
STAMP = "2026-10-01T00:00:00.000000"


def isbn13(n):
    body = "978" + str(n).zfill(9)
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)


def title_for(work):
    r = random.Random(work)
    return " ".join(r.choice(words) for _ in range(r.randint(2, 5))).title()


def author_name(a):
    return f"{first[a % len(first)]} {chr(65 + (a // 20) % 26)}. {last[(a // 520) % len(last)]} {a}"


def gz(name):
    return gzip.open(f"{out}/{name}", "wt", compresslevel=1, encoding="utf-8")


with gz("authors.txt.gz") as f:
    for a in range(authors_count):
        key = f"/authors/OL{a}A"
        f.write(f"/type/author\t{key}\t1\t{STAMP}\t" + json.dumps({"key": key, "name": author_name(a), "type": {"key": "/type/author"}}) + "\n")
with gz("works.txt.gz") as f:
    for w in range(works_count):
        key = f"/works/OL{w}W"
        data = {"key": key, "title": title_for(w), "type": {"key": "/type/work"},
                "authors": [{"author": {"key": f"/authors/OL{w % authors_count}A"}, "type": {"key": "/type/author_role"}}],
                "description": {"type": "/type/text", "value": "A synthetic work for the benchmark. " * 3}}
        f.write(f"/type/work\t{key}\t1\t{STAMP}\t" + json.dumps(data) + "\n")
with gz("editions.txt.gz") as f:
    for e in range(editions_count):
        w = e % works_count
        key = f"/books/OL{e}M"
        data = {"key": key, "title": title_for(w), "type": {"key": "/type/edition"}, "works": [{"key": f"/works/OL{w}W"}],
                "authors": [{"key": f"/authors/OL{w % authors_count}A"}], "isbn_13": [isbn13(e)],
                "publishers": [rng.choice(["Bench Press", "Synthetic House", "Example Books"])],
                "publish_date": str(1950 + e % 70), "number_of_pages": 100 + e % 600, "covers": [e + 1],
                "languages": [{"key": "/languages/eng"}], "physical_format": "Paperback",
                "last_modified": {"type": "/type/datetime", "value": STAMP}, "revision": 3, "latest_revision": 3}
        f.write(f"/type/edition\t{key}\t3\t{STAMP}\t" + json.dumps(data) + "\n")
with gz("rows.ndjson.gz") as f:
    for i in range(rows_count):
        e = rng.randrange(editions_count)
        w = e % works_count
        record = {"format": "goodreads", "line": i + 2, "byteOffset": 0, "byteLength": 0, "title": title_for(w),
                  "author": author_name(w % authors_count)}
        kind = rng.random()
        if kind < isbn_share:
            record["isbn13"] = isbn13(e)
        elif kind < isbn_share + 0.1:
            record["isbn13"] = isbn13(editions_count + 10_000_000 + i)
        f.write(json.dumps(record) + "\n")
