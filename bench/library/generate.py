#!/usr/bin/env python3
"""Writes a synthetic import for the library benchmark: BookRecord gzip NDJSON plus a parse report.

usage: generate.py OUT_DIR --rows N --first-book K [--seed S]

Row i describes book K+i (so two imports with overlapping book ranges overlap), about 1% of rows
repeat an earlier book of the same file (a re-read), ~20% have no ISBN (title+author key only),
and lookup annotations are mixed: matchedByIsbn, matchedBySearch, needsReview, notEnriched.
The records follow Sources/ShelflineCore/Records/BookRecord.swift's JSON keys.
"""
import argparse, gzip, json, os, random

WORDS = ("night wind river stone garden empire shadow light glass winter house city sea iron "
         "silver book song memory fire star road island forest crown heart time dream ghost").split()
SURNAMES = ("Smith Okafor García Müller Tanaka Novak Rossi Dubois Kowalski Silva Ivanova Jensen "
            "Haddad Nguyen O'Brien Le\u00a0Guin Andersen Costa Yilmaz Schmidt").split()
GIVEN = "Ana Ben Chidi Dana Émile Farah Goro Hana Ivo Jun Kai Lena Mara Nils Olu Pia".split()

def isbn13(n):
    body = "978" + str(100000000 + n % 900000000).zfill(9)
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)

def book(n, rng):
    r = random.Random(n)
    title = " ".join(r.choice(WORDS).capitalize() for _ in range(r.randint(2, 5))) + f" {n}"
    author = f"{r.choice(GIVEN)} {r.choice(SURNAMES)}"
    has_isbn = r.random() > 0.2
    return title, author, (isbn13(n) if has_isbn else None), r

def record(line, n, rng, offset):
    title, author, isbn, r = book(n, rng)
    rec = {"format": "goodreads", "line": line, "rowId": str(1000000 + n), "byteOffset": offset,
           "byteLength": 180, "title": title, "author": author}
    if isbn:
        rec["isbn13"] = isbn
    shelf = rng.choice(["read", "read", "to-read", "currently-reading"])
    rec["shelf"] = shelf
    rec["shelves"] = sorted({shelf, rng.choice(["fiction", "favorites", "book-club", "library"])})
    if shelf == "read":
        rec["rating"] = rng.choice([3, 4, 5, 4.5])
        day = rng.randint(1, 28)
        rec["reads"] = [{"end": f"20{rng.randint(10, 24)}-0{rng.randint(1, 9)}-{day:02d}"}]
        rec["readCount"] = 1
        if rng.random() < 0.3:
            rec["review"] = "Loved it, \"really\" — " + " ".join(rng.choice(WORDS) for _ in range(30))
    rec["dateAdded"] = f"20{rng.randint(10, 24)}-0{rng.randint(1, 9)}-{rng.randint(1, 28):02d}"
    rec["pages"] = r.randint(90, 900)
    rec["publisher"] = "Press " + r.choice(WORDS).capitalize()
    roll = rng.random()
    if roll < 0.70 and isbn:
        rec["match"] = {"status": "matchedByIsbn", "editionKey": f"/books/OL{n}M", "workKey": f"/works/OL{n}W",
                        "source": "catalog"}
        rec["metadata"] = {"editionKey": f"/books/OL{n}M", "workKey": f"/works/OL{n}W", "coverId": n,
                           "year": 1950 + n % 70, "source": "catalog"}
    elif roll < 0.80:
        rec["match"] = {"status": "matchedBySearch", "editionKey": f"/books/OL{n}M", "source": "catalog"}
        rec["metadata"] = {"editionKey": f"/books/OL{n}M", "subtitle": "A Novel", "source": "catalog"}
    elif roll < 0.85:
        rec["match"] = {"status": "needsReview", "source": "catalog", "candidates": [
            {"key": f"/books/OL{n}M", "title": title, "authors": [author], "score": 0.71},
            {"key": f"/books/OL{n + 1}M", "title": title + " (Abridged)", "authors": [author], "score": 0.69}]}
    else:
        rec["match"] = {"status": "notEnriched", "reason": "no candidate", "source": "catalog"}
    return rec

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--first-book", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    path = os.path.join(args.out, "records.ndjson.gz")
    with gzip.open(path, "wt", compresslevel=1, encoding="utf-8") as out:
        for i in range(args.rows):
            line = i + 2
            n = args.first_book + i
            if i > 100 and rng.random() < 0.01:
                n = args.first_book + rng.randint(0, i - 1)  # a repeat of an earlier book
            out.write(json.dumps(record(line, n, rng, 200 + i * 180), ensure_ascii=False, separators=(",", ":")) + "\n")
    report = {"input": os.path.join(args.out, "source-not-kept.csv"), "format": "goodreads", "delimiter": ",",
              "header": ["Book Id", "Title"], "headerByteOffset": 0, "headerByteLength": 200,
              "rowsRead": args.rows, "rowsWritten": args.rows, "rowsRejected": 0, "fieldsRepaired": 0}
    with open(os.path.join(args.out, "parse-report.json"), "w") as out:
        json.dump(report, out)

if __name__ == "__main__":
    main()
