#!/usr/bin/env python3
"""Generate a Goodreads export shaped like the real ones in ../shared/corpus, for the offline benchmark.

Usage: generate.py ROWS OUT.csv [CORPUS.csv] [SEED]

Rows are built from the real 31-column export's rows (read at run time, never copied into the
repository): its titles, authors, publishers, bindings and HTML review fragments, recombined so
that most rows are distinct books. Unlike bench/parse's generator: long HTML reviews (several of
the corpus's reviews and notes joined, 0.5-6 KB on most read rows), many custom shelves per row
(4-14, the corpus averages 4.3 with up to 20), and half the rows without any ISBN. About 3% are
duplicate rows. Deterministic for a given seed.
"""
import csv
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "parse"))
from generate import isbn10_check, isbn13_from10  # noqa: E402 (bench/parse's generator: one ISBN implementation)

ROWS = int(sys.argv[1])
OUT = sys.argv[2]
CORPUS = sys.argv[3] if len(sys.argv) > 3 else "../shared/corpus/gr_31col_html-reviews_genekaufman.csv"
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 20261126)

with open(CORPUS, encoding="utf-8", newline="") as handle:
    reader = csv.DictReader(handle)
    header = reader.fieldnames
    corpus = list(reader)

fragments = [r["My Review"] for r in corpus if r["My Review"]] + [r["Private Notes"] for r in corpus if r["Private Notes"]]
words = sorted({w for r in corpus for w in r["Title"].replace("(", " ").replace(")", " ").split() if w.isalpha()})
shelves = sorted({s.strip() for r in corpus for s in r["Bookshelves"].split(",") if s.strip()})
shelves += [f"g-{w.lower()}" for w in words[:200]]


def make_row(index):
    template = rng.choice(corpus)
    row = dict(template)
    row["Book Id"] = str(50_000_000 + index)
    # A distinct book most of the time: the template's title with words of other titles.
    extra = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
    row["Title"] = f"{template['Title']} {extra}" if rng.random() < 0.9 else template["Title"]
    donor = rng.choice(corpus)
    row["Author"], row["Author l-f"] = donor["Author"], donor["Author l-f"]
    if rng.random() < 0.5:
        row["ISBN"], row["ISBN13"] = '=""', '=""'
    else:
        body = "".join(str(rng.randrange(10)) for _ in range(9))
        isbn10 = body + isbn10_check(body)
        row["ISBN"], row["ISBN13"] = f'="{isbn10}"', f'="{isbn13_from10(isbn10)}"' if rng.random() < 0.9 else '=""'
    picked = rng.sample(shelves, rng.randint(4, 14))
    exclusive = rng.choice(["read", "to-read", "currently-reading", "did-not-finish"])
    row["Bookshelves"] = ", ".join(picked + [exclusive])
    row["Bookshelves with positions"] = ", ".join(f"{s} (#{rng.randint(1, 900)})" for s in picked + [exclusive])
    row["Exclusive Shelf"] = exclusive
    if exclusive == "read" or rng.random() < 0.3:
        row["My Review"] = "<br/><br/>".join(rng.choice(fragments) for _ in range(rng.randint(2, 8)))
    else:
        row["My Review"] = ""
    return row


with open(OUT, "w", encoding="utf-8", newline="") as handle:
    writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    previous = []
    for index in range(ROWS):
        if previous and rng.random() < 0.03:
            row = rng.choice(previous)
        else:
            row = make_row(index)
            if len(previous) < 1000:
                previous.append(row)
            else:
                previous[rng.randrange(1000)] = row
        writer.writerow(row)
