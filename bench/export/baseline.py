#!/usr/bin/env python3
"""Reference baseline for `shelfline export --format goodreads`: Python's csv writer over the same
library NDJSON (gzip), the same 24 columns and cell forms (minimal quoting, ="…" ISBN cells,
YYYY/MM/DD dates), streaming one book at a time.

usage: baseline.py LIBRARY.ndjson.gz OUT.csv
"""
import csv, gzip, json, sys

HEADER = ["Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
          "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
          "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
          "Spoiler", "Private Notes", "Read Count", "Owned Copies"]

def slash(date):
    return date.replace("-", "/") if date else ""

def main(library, out):
    with gzip.open(library, "rt", encoding="utf-8") as books, open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(HEADER)
        for line in books:
            b = json.loads(line)
            author = b.get("author") or ""
            words = author.split(" ")
            title = b["title"] + (f" ({b['series']}, #{b['seriesPosition']})" if b.get("series") and b.get("seriesPosition") else "")
            rating = b.get("rating") or 0
            stars = 0 if not rating else min(5, max(1, int(rating + 0.5)))
            ends = [r["end"] for r in b.get("reads") or [] if r.get("end")]
            positions = b.get("shelfPositions") or [{"shelf": s} for s in b.get("shelves") or []]
            row_ids = [r for c in b.get("provenance", []) if c.get("format") == "goodreads" for r in c.get("rowIds") or []]
            writer.writerow([
                row_ids[0] if row_ids else "", title, author,
                f"{words[-1]}, {' '.join(words[:-1])}" if len(words) > 1 else author,
                ", ".join(b.get("additionalAuthors") or []), f'="{b.get("isbn10", "")}"', f'="{b.get("isbn13", "")}"',
                stars, "", b.get("publisher", ""), b.get("binding", ""), b.get("pages", ""), b.get("year", ""),
                b.get("originalYear", ""), slash(max(ends) if ends else ""), slash(b.get("dateAdded")),
                ", ".join(p["shelf"] for p in positions),
                ", ".join(p["shelf"] + (f" (#{p['position']})" if "position" in p else "") for p in positions),
                b.get("shelf", ""), b.get("review", ""), "true" if b.get("spoiler") else "", b.get("notes", ""),
                b.get("readCount", ""), b.get("ownedCopies", 1 if b.get("owned") else 0)])

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
