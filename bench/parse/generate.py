#!/usr/bin/env python3
"""Generate a synthetic Goodreads 31-column export for the parse benchmark.

Usage: generate.py ROWS OUT.csv [SEED]

Deterministic for a given seed. Rows carry what makes real exports hard: quoted multi-line
HTML reviews with commas and doubled quotes, unicode titles and names, runs of spaces in author
names, empty ISBN cells, ISBN-10-only rows (some ending in X), series in titles, half of the
rows unrated, custom shelves, and about 3% duplicate rows.
"""
import csv
import random
import sys

HEADER = ["Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
          "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published",
          "Original Publication Year", "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions",
          "Exclusive Shelf", "My Review", "Spoiler", "Private Notes", "Read Count", "Recommended For",
          "Recommended By", "Owned Copies", "Original Purchase Date", "Original Purchase Location", "Condition",
          "Condition Description", "BCID"]

WORDS = ("the of and a to in is you that it he was for on are as with his they at be this have from or one had "
         "by word but not what all were we when your can said there use an each which she do how their if will "
         "up other about out many then them these so some her would make like him into time has look two more "
         "write go see number no way could people my than first water been call who oil its now find long down "
         "day did get come made may part ocean storm galaxy dragon winter library empire shadow river").split()
UNICODE = ["Ærøskøbing", "Mélanie", "Żółć", "Γαλαξίας", "Кафка", "東京", "naïve café", "Brontë", "Ñandú", "😀 emoji"]
FIRST = ["Ursula", "Tamsyn", "Neil", "N.K.", "Mélanie", "José", "Haruki", "Chimamanda", "Terry", "Iain M."]
LAST = ["Le Guin", "Muir", "Gaiman", "Jemisin", "Dupuis", "Saramago", "Murakami", "Adichie", "Pratchett", "Banks"]
SHELVES = ["to-read", "read", "currently-reading", "did-not-finish", "favorites"]
BINDINGS = ["Paperback", "Hardcover", "Kindle Edition", "Mass Market Paperback", "Audiobook", ""]


def isbn10_check(body):
    total = sum(int(d) * (10 - i) for i, d in enumerate(body))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


def isbn13_from10(isbn10):
    body = "978" + isbn10[:9]
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)


def sentence(rng, n):
    words = [rng.choice(WORDS) for _ in range(n)]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice(UNICODE))
    return " ".join(words)


def review(rng):
    if rng.random() < 0.55:
        return ""
    paragraphs = []
    for _ in range(rng.randint(1, 4)):
        text = sentence(rng, rng.randint(8, 60)).capitalize()
        text = text.replace(" and ", ", and ", 1).replace(" said ", ' said "quote, unquote" ', 1)
        paragraphs.append(text + ".")
    joiner = rng.choice(["<br/><br/>", "\n\n", "\r\n", "<br/>\n"])
    return joiner.join(paragraphs)


def make_row(rng, book_id):
    title = sentence(rng, rng.randint(1, 6)).title()
    if rng.random() < 0.3:
        title += f" ({sentence(rng, 2).title()}, #{rng.randint(1, 12)})"
    first, last = rng.choice(FIRST), rng.choice(LAST)
    author = f"{first}{'    ' if rng.random() < 0.05 else ' '}{last}"
    additional = ", ".join(f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(rng.choice([0, 0, 0, 1, 2])))
    body = "".join(str(rng.randrange(10)) for _ in range(9))
    isbn10 = body + isbn10_check(body)
    kind = rng.random()
    if kind < 0.2:
        isbn_cell, isbn13_cell = '=""', '=""'
    elif kind < 0.3:
        isbn_cell, isbn13_cell = f'="{isbn10}"', '=""'
    else:
        isbn_cell, isbn13_cell = f'="{isbn10}"', f'="{isbn13_from10(isbn10)}"'
    shelf = rng.choice(SHELVES)
    rating = rng.randint(1, 5) if shelf == "read" and rng.random() < 0.8 else 0
    year = rng.randint(1950, 2025)
    added = f"{rng.randint(2008, 2025)}/{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}"
    date_read = f"{rng.randint(2008, 2025)}/{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}" if shelf == "read" else ""
    shelves = ", ".join([shelf] + rng.sample(["sci-fi", "fantasy", "non-fiction", "owned", "book-club"], rng.randint(0, 2)))
    return [str(book_id), title, author, f"{last}, {first}", additional, isbn_cell, isbn13_cell, str(rating),
            f"{rng.uniform(2.5, 4.9):.2f}", rng.choice(["Tor", "Penguin", "Gallimard", "Ediciones Ñ", ""]),
            rng.choice(BINDINGS), str(rng.randint(90, 1200)) if rng.random() < 0.95 else "", str(year),
            str(year - rng.randint(0, 30)) if rng.random() < 0.8 else "", date_read, added, shelves,
            shelves.replace(",", " (#1),") + " (#2)", shelf, review(rng), "", "private, note" if rng.random() < 0.05 else "",
            str(rng.randint(1, 3)) if date_read else "0", "", "", str(rng.choice([0, 0, 0, 1])), "", "", "", "", ""]


def main():
    rows = int(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261123)
    previous = []
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        for index in range(rows):
            if previous and rng.random() < 0.03:
                row = list(rng.choice(previous))  # a duplicate row, as re-imports and merged exports have
            else:
                row = make_row(rng, 1_000_000 + index)
                if len(previous) < 1000:
                    previous.append(row)
                else:
                    previous[rng.randrange(1000)] = row
            writer.writerow(row)


if __name__ == "__main__":
    main()
