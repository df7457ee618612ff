#!/usr/bin/env python3
"""Labelled dedupe fixtures: Goodreads 24-column exports and, beside them, each row's true book.

make_fixtures.py OUT_DIR SEED SYNTHETIC_FAMILIES PARSED.ndjson.gz...

PARSED files are `shelfline-parse` outputs of the real exports. Each real book (rows grouped only
where the truth is plain: a shared ISBN with the same author and main title, or the same title and
author surname; a row without a subtitle joins the one book of that main title and author) becomes
a *seed*; SYNTHETIC_FAMILIES more seeds are invented. Every seed is the base of a *family*: near-miss
siblings of one kind (different books that must stay apart, see NEAR_MISS), each its own book, and
for every book one to four rows, the first as the book is written, the others *same-book variants*
(see VARIANTS) that must fold into it. A book's rows carry its one ISBN or none (`=""`, as Kindle
rows do); about half the rows have none.

Writes, in OUT_DIR:
- infile.csv: every row, shuffled, one export (the in-file mode);
- a.csv, b.csv: the same rows split in two exports (the library mode: import A, then B): B holds
  other rows of A's books and siblings A never had;
- works.txt.gz, editions.txt.gz, authors.txt.gz: a catalog in Open Library dump format holding
  about 70 % of the books, siblings included (for the modes enriched by lookup);
- labels.json: {"files": {"infile.csv": [row], "a.csv": [...], "b.csv": [...]}, "books": {id: book}}
  where row = {"line", "book", "variant", "ambiguous", "entry"} in file order (line = the CSV line) and
  book = {"title", "author", "family", "kind", "source", "work"} (work: its catalog work, or null).
A row is *ambiguous* when what it shows (it dropped its subtitle or series number) fits another
book of the file as well as its own: it may stay a book of its own, but must not join another.
A row is a *second entry* (`entry`) when it dropped its subtitle beside a row of its book in the
same file that shows it, with no ISBN joining them: every row has its own Book Id, so by the
two-entries rule (docs/library.md) they are two books; it too may stay a book of its own or join
its own book, never another.
Deterministic for a seed; nothing is tuned to the code under test.
"""
import csv
import gzip
import json
import os
import random
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from labelled_books import FreshISBNs, UnionFind, fold, split_subtitle, strip_series  # noqa: E402

out, seed, synthetic_families, inputs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
rng = random.Random(seed)

HEADER = ["Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
          "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
          "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
          "Spoiler", "Private Notes", "Read Count", "Owned Copies"]

# Near-miss kinds: each family has a base book and siblings of one kind, all different books.
NEAR_MISS = ["series_volume", "companion_workbook", "comic_volume", "retitled_edition", "other_subtitle",
             "translation", "omnibus", "book_number", "box_set", "same_surname", "sequel", "none"]
# Same-book variants: how another row of the same book may be written.
VARIANTS = ["no_subtitle", "subtitle_added", "edition_marker", "no_series", "series_added", "initials",
            "misspelt_first", "last_first", "case", "punctuation", "number_word"]

ARTICLES = {"the", "a", "an", "le", "la", "les", "l", "el", "los", "las", "der", "die", "das"}
SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "phd", "md", "dr"}
NUMBER_WORDS = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}

ADJECTIVES = ("Silent Hidden Broken Golden Quiet Restless Distant Burning Hollow Crimson Gentle Final Secret Wild "
              "Endless Frozen Lost Bright Narrow Open Patient Practical Radical Simple Slow Strange Tidal Unseen "
              "Urban Wandering Modern Ancient Careful Deep Early Honest Invisible Lucky").split()
NOUNS = ("Harbor Garden Machine Grammar Kingdom Lighthouse Orchard Atlas Ledger Compass Archive Lantern River "
         "Engine Mirror Signal Border Meadow Furnace Canyon Station Bridge Country Cathedral Data Stories Habits "
         "Numbers Tide Voyage Winter Summer Empire Alphabet Circuit Frontier Weather Library Algorithm").split()
SUBTITLES = ["A Guide for Professionals", "A Novel", "A Memoir", "A New History", "The Definitive Guide",
             "An Introduction", "A Field Guide", "How Things Really Work", "A Short History", "Stories",
             "Essays on Craft", "The Untold Story", "A Practical Handbook", "Lessons from a Life",
             "Notes on a Changing World", "An Illustrated History", "A Biography", "Poems",
             "Why It Matters", "The Art of Deception", "Rules and Practice", "A Beginner's Guide"]
OTHER_SUBTITLES = ["Even More", "Advanced Topics", "A Reader", "Further Essays", "The Later Years",
                   "New Stories", "A Second Look", "Beyond the Basics", "The Early Years", "Collected Letters"]
GIVEN = ("Anna Benedikt Carla Dmitri Elena Farid Greta Hiroshi Ingrid Jonathan Katarina Leonard Marisol Nikolai "
         "Oksana Patrick Quentin Rosalind Sebastian Theresa Ulrich Valentina Walter Xavier Yolanda Zachary "
         "Beatrice Cornelius Dorothea Emmanuel Frederick Gabriella Heinrich Isadora Josephine Kenneth Lucinda "
         "Maximilian Natalia Octavia").split()
SURNAMES = ("Abernathy Brightwater Castellano Delacroix Eberhardt Fairweather Grünewald Hollister Ishikawa "
            "Jablonski Kowalczyk Lindqvist Montgomery Nakamura Oyelaran Pemberton Quintero Rasmussen Szabó "
            "Thorvaldsen Underwood Valdés Whitcombe Yamamoto Zielinski Ashworth Blackwood Cavendish Drummond "
            "Ellsworth Fitzgerald Galloway Hargreaves Ingleby Jorgensen Kingsley Lockhart Mortimer Northcott "
            "Okonkwo Prescott Radcliffe Sinclair Thornbury Vandermeer Westbrook").split()
GERMAN = {"the": "Die", "of": "der", "and": "und", "a": "eine", "guide": "Leitfaden", "history": "Geschichte",
          "new": "neue", "short": "kurze", "novel": "Roman", "memoir": "Erinnerungen", "stories": "Geschichten",
          "introduction": "Einführung", "world": "Welt", "life": "Leben", "art": "Kunst", "deception": "Täuschung",
          "for": "für", "professionals": "Profis", "how": "wie", "things": "Dinge", "really": "wirklich",
          "work": "funktionieren", "field": "Feld", "definitive": "endgültige", "story": "Geschichte"}
FRENCH_SUBTITLES = ["Une histoire nouvelle", "Roman", "Guide pratique", "Mémoires", "Une introduction"]
SPANISH_SUBTITLES = ["Una nueva historia", "Novela", "Guía práctica", "Memorias", "Una introducción"]
MARKERS = [" (Kindle Edition)", " (German Edition)", " (Spanish Edition)", " [Kindle Edition]", " (French Edition)"]


def norm(text):
    words = re.findall(r"\w+", fold(text.replace("&", " and ").replace("'", "").replace("’", "")).lower())
    return " ".join(words)


def norm_main(text):
    words = norm(text).split()
    return " ".join(words[1:] if len(words) > 1 and words[0] in ARTICLES else words)


def first_author(author):
    """The first of `A & B` / `A; B`, as `First Last` (`Boswell, Dustin` → `Dustin Boswell`)."""
    author = re.split(r"\s*(?:&|;| and )\s*", author.strip())[0]
    if "," in author:
        last, first = [x.strip() for x in author.split(",", 1)]
        author = f"{first} {last}".strip()
    return author


def surname(author):
    words = [w for w in norm(first_author(author)).split() if w not in SUFFIXES]
    return words[-1] if words else ""


def given_initial(author):
    words = norm(first_author(author)).split()
    return words[0][0] if len(words) > 1 else ""


def unarticle(title):
    """`Peripheral, The` → `The Peripheral` (LibraryThing's sort form, also after a subtitle)."""
    title = strip_series(title)
    match = re.match(r"^(.*?),\s*(the|a|an)$", title, re.I)
    return strip_series(f"{match.group(2)} {match.group(1)}") if match else title


used_isbns = set()

fresh_isbn = FreshISBNs(300_000, used_isbns)


# ---------------------------------------------------------------------------------------------
# Books. A book is {id, main, sub, series, number, author, isbn, family, kind, distinct, source}.
# `distinct`: its title carries a token (a volume or book number, Workbook, Omnibus, Box Set…) that
# a row without its subtitle cannot be confused with.

books = {}
book_order = []
taken = set()  # (main, sub, number, surname, initial) of every book: no two books alike by accident


def identity(main, sub, number, author):
    return (norm_main(main), norm(sub) if sub else "", str(number or ""), surname(author), given_initial(author))


def add_book(family, kind, main, sub, author, series=None, number=None, isbn=None, distinct=False, source="generated"):
    ident = identity(main, sub, number, author)
    if ident in taken or not norm_main(main) or not surname(author):
        return None
    taken.add(ident)
    book_id = f"B{len(books):05d}"
    books[book_id] = {"id": book_id, "main": main, "sub": sub, "series": series, "number": number, "author": author,
                      "isbn": isbn, "family": family, "kind": kind, "distinct": distinct, "source": source,
                      "rows": []}
    book_order.append(book_id)
    return book_id


def full_title(main, sub, series=None, number=None):
    title = f"{main}: {sub}" if sub else main
    if series and number is not None:
        title += f" ({series}, #{number})"
    return title


def translate(text):
    return " ".join(GERMAN.get(w.lower(), w) for w in text.split())


def make_family(family, kind, main, sub, author, series, number, isbn, source, r):
    """The base book and its near-miss siblings of `kind`."""
    base = add_book(family, kind, main, sub, author, series, number, isbn, source=source)
    if base is None:
        return False
    name = series or main
    given_words = author.split()

    def sibling(smain, ssub, sauthor=author, sseries=None, snumber=None, distinct=False):
        add_book(family, kind, smain, ssub, sauthor, sseries, snumber, fresh_isbn(), distinct, source="sibling")

    if kind == "series_volume":
        # The Grammar Book: A Guide (The Grammar Book, #1) … #3: subtitles and numbers differ.
        start = number if isinstance(number, int) else 1
        books[base]["series"], books[base]["number"] = name, start
        if books[base]["sub"] is None:
            return  # a base without subtitle would be a plain sibling of its volumes: no such family
        for offset, ssub in enumerate(r.sample(OTHER_SUBTITLES, r.randint(1, 3)), 1):
            sibling(main, ssub, sseries=name, snumber=start + offset)
    elif kind == "companion_workbook":
        options = [(main, "Let's Practice!", False), (f"{main} Workbook", None, True), (main, "The Workbook", True),
                   (f"The {main} Companion", None, True), (main, "A Companion", True), (main, "Answer Key", False)]
        for smain, ssub, distinct in r.sample(options, r.randint(1, 2)):
            if ssub and sub is None and not distinct:
                continue  # the base without subtitle vs a plain subtitle: undecidable, not a near miss
            sibling(smain, ssub, distinct=distinct)
    elif kind == "comic_volume":
        for n in r.sample(range(0, 4), r.randint(1, 2)):
            sibling(main, r.choice([f"volume {n}", f"Volume {n}", f"Vol. {n}"]), distinct=True)
    elif kind == "retitled_edition":
        if sub and " " in sub:
            first, rest = sub.split(" ", 1)
            for word in r.sample(["Science", "Craft", "Return", "Practice", "Psychology"], 1):
                words = rest.split(" ")
                new = f"{first} {word} {' '.join(words[1:])}".strip() if len(words) > 1 else f"{first} {word} of {rest}"
                sibling(main, new)
        else:
            sibling(f"{main} Revisited", None, distinct=True)
    elif kind == "other_subtitle":
        if sub is None:
            return
        for ssub in r.sample(OTHER_SUBTITLES, r.randint(1, 2)):
            sibling(main, ssub)
    elif kind == "translation":
        if sub:
            choice = r.random()
            mostly_german = sum(w.lower() in GERMAN for w in sub.split()) * 2 > len(sub.split())
            ssub = translate(sub) if choice < 0.4 and mostly_german else r.choice(
                FRENCH_SUBTITLES if choice < 0.7 else SPANISH_SUBTITLES)
            if norm(ssub) != norm(sub):
                sibling(main, ssub)
        translated = translate(main) if sum(w.lower() in GERMAN for w in main.split()) * 2 > len(main.split()) else ""
        if norm_main(translated) != norm_main(main):
            sibling(translated, translate(sub) if sub else None)
    elif kind == "omnibus":
        options = [(f"{main} Omnibus", None), (main, "Books 1-3"), (main, "The Complete Trilogy"),
                   (f"{main} Trilogy", None), (main, "The Complete Series")]
        for smain, ssub in r.sample(options, r.randint(1, 2)):
            sibling(smain, ssub, sseries=name if r.random() < 0.3 else None, snumber="1-3" if r.random() < 0.3 else None,
                    distinct=True)
    elif kind == "book_number":
        # `Main: Book One` vs `Main: Book 2` vs `Main, Book Three`: the numbers differ, written either way.
        if source != "real":  # a real book keeps its own title; its siblings are `…: Book n`
            books[base]["sub"], books[base]["series"], books[base]["number"] = "Book 1", None, None
            books[base]["distinct"] = True
        for n in r.sample(range(2, 6), r.randint(1, 2)):
            sibling(main, r.choice([f"Book {n}", f"Book {NUMBER_WORDS[n]}"]), distinct=True)
    elif kind == "box_set":
        options = [(f"{main} Box Set", None), (f"{main} Boxed Set", "Books 1-4"), (main, "The Complete Box Set")]
        for smain, ssub in r.sample(options, 1):
            sibling(smain, ssub, distinct=True)
    elif kind == "same_surname":
        if len(given_words) < 2:
            return
        last = author.split()[-1]
        initial = given_initial(author)
        others = [g for g in GIVEN if g[0].lower() != initial]
        sibling(main, sub, f"{r.choice(others)} {last}")
    elif kind == "sequel":
        options = [(f"{main} II", None), (f"{main} Returns", None), (f"{main} 2", None), (f"Return to {main}", None)]
        for smain, ssub in r.sample(options, r.randint(1, 2)):
            sibling(smain, ssub, distinct=True)
    return True


# Real seeds. ---------------------------------------------------------------------------------
real = []
for path in inputs:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        real.extend(json.loads(line) for line in f)

groups_of = UnionFind()
find, union = groups_of.find, groups_of.union


real_rows = []
for row in real:
    title = unarticle(row.get("titleBase") or row.get("title") or "")
    author = " ".join((row.get("author") or "").split())
    if not norm_main(split_subtitle(title)[0]) or len(surname(author)) < 2:
        continue
    main, sub = split_subtitle(title)
    real_rows.append({"main": main, "sub": sub, "author": author, "isbn": row.get("isbn13"), "raw": row.get("title"),
                      "series": row.get("series"), "number": row.get("seriesPosition"),
                      "full": norm(title), "mainKey": (norm_main(main), surname(author))})
by_full, by_isbn, by_main = {}, {}, {}
for index, row in enumerate(real_rows):
    find(index)
    full = (row["full"], surname(row["author"]))
    if full in by_full:
        union(index, by_full[full])
    else:
        by_full[full] = index
    by_main.setdefault(row["mainKey"], []).append(index)
for index, row in enumerate(real_rows):
    if row["isbn"]:
        other = by_isbn.setdefault(row["isbn"], index)
        if other != index and real_rows[other]["mainKey"] == row["mainKey"]:
            union(index, other)
for key, members in by_main.items():
    with_sub = {find(i) for i in members if real_rows[i]["sub"]}
    if len(with_sub) == 1:
        for i in members:
            if not real_rows[i]["sub"]:
                union(i, next(iter(with_sub)))
groups = {}
for index in range(len(real_rows)):
    groups.setdefault(find(index), []).append(index)
# Groups whose truth is not plain (a shared ISBN under another main title, a main title and author
# that several books share without a subtitle to tell them apart, two subtitles) are left out.
left_out = 0
seed_groups = []
for root, members in groups.items():
    ambiguous = False
    for i in members:
        if not real_rows[i]["sub"] and len({find(j) for j in by_main[real_rows[i]["mainKey"]]}) > 1:
            ambiguous = True
    other_isbn = [i for i in members if real_rows[i]["isbn"] and by_isbn.get(real_rows[i]["isbn"]) is not None
                  and find(by_isbn[real_rows[i]["isbn"]]) != root]
    # Two subtitles for one book (`Awareness: Conversations with the Masters` / `…: The Perils and
    # Opportunities of Reality` under one ISBN): different books by their titles, one by the ISBN.
    subtitles = {norm(real_rows[i]["sub"]) for i in members if real_rows[i]["sub"]}
    if ambiguous or other_isbn or len(subtitles) > 1:
        left_out += len(members)
        continue
    seed_groups.append(members)
for members in seed_groups:
    for i in members:
        if real_rows[i]["isbn"]:
            used_isbns.add(real_rows[i]["isbn"])

family_counter = [0]


def new_family():
    family_counter[0] += 1
    return f"F{family_counter[0]:05d}"


real_extra = {}  # book id → the group's other real rows, shown as they were
for members in seed_groups:
    first = real_rows[members[0]]
    # The richest row as the book: one with a subtitle if any.
    best = next((real_rows[i] for i in members if real_rows[i]["sub"]), first)
    r = random.Random(f"{seed}|real|{best['full']}|{best['author']}")
    kind = r.choice(NEAR_MISS)
    isbn = next((real_rows[i]["isbn"] for i in members if real_rows[i]["isbn"]), None)
    number = best["number"]
    number = int(number) if number and str(number).isdigit() else None
    family = new_family()
    before = len(book_order)
    make_family(family, kind, best["main"], best["sub"], best["author"], best["series"], number, isbn, "real", r)
    if len(book_order) > before:
        real_extra[book_order[before]] = [real_rows[i] for i in members if real_rows[i] is not best]
        base = books[book_order[before]]
        if (base["sub"], base["series"]) == (best["sub"], best["series"]):  # its family kept its title
            base["raw"] = best["raw"]

# Synthetic seeds. ----------------------------------------------------------------------------
for n in range(synthetic_families):
    r = random.Random(f"{seed}|synthetic|{n}")
    kind = NEAR_MISS[n % len(NEAR_MISS)]
    for _ in range(20):  # a new main title and author, unlike any book so far
        main = r.choice([f"The {r.choice(ADJECTIVES)} {r.choice(NOUNS)}", f"{r.choice(NOUNS)} {r.choice(NOUNS)}",
                         f"{r.choice(ADJECTIVES)} {r.choice(NOUNS)}", f"A {r.choice(NOUNS)} of {r.choice(NOUNS)}"])
        middle = [r.choice(GIVEN)] if r.random() < 0.3 else []
        author = " ".join([r.choice(GIVEN)] + middle + [r.choice(SURNAMES)])
        sub = r.choice(SUBTITLES) if kind in ("series_volume", "other_subtitle") or r.random() < 0.6 else None
        if kind == "retitled_edition":
            sub = r.choice(["The Art of Deception", "The Art of Persuasion", "The Craft of Listening",
                            "The Science of Habits", "The Logic of Crowds"])
        series = main if r.random() < 0.4 else None
        number = r.randint(1, 3) if series else None
        if make_family(new_family(), kind, main, sub, author, series, number,
                       fresh_isbn() if r.random() < 0.8 else None, "generated", r):
            break


# Rows. ---------------------------------------------------------------------------------------
def typo(word, r):
    if len(word) < 5:
        return word + word[-1]
    i = r.randrange(1, len(word) - 2)
    choice = r.random()
    if choice < 0.4:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if choice < 0.7:
        return word[:i] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def punctuate(title, r):
    choice = r.random()
    if choice < 0.25 and "'" in title:
        return title.replace("'", "’")
    if choice < 0.45 and ("&" in title or " and " in title):
        return title.replace("&", "and") if "&" in title else title.replace(" and ", " & ")
    if choice < 0.6 and "," in title:
        return title.replace(",", "")
    if choice < 0.8:
        return title.replace(" ", "  ", 1) + "."
    return title.replace(":", " :", 1) if ":" in title else title + "!"


def swap_number_word(sub):
    match = re.fullmatch(r"Book (\d+)", sub or "")
    if match and int(match.group(1)) in NUMBER_WORDS:
        return f"Book {NUMBER_WORDS[int(match.group(1))]}"
    match = re.fullmatch(r"Book (\w+)", sub or "")
    if match:
        for n, word in NUMBER_WORDS.items():
            if word == match.group(1):
                return f"Book {n}"
    return None


def variant_row(book, variant, r):
    """(title, author, dropped_sub, dropped_number) of one row of `book` written as `variant`."""
    main, sub, series, number, author = book["main"], book["sub"], book["series"], book["number"], book["author"]
    dropped_sub = dropped_number = False
    marker = ""
    if variant == "no_subtitle":
        sub, dropped_sub = None, True
    elif variant == "edition_marker":
        marker = r.choice(MARKERS)
        series = None if r.random() < 0.5 else series
        dropped_number = series is None and book["number"] is not None
    elif variant == "no_series":
        series, dropped_number = None, book["number"] is not None
    elif variant == "series_added":
        series = series or main
    elif variant == "number_word":
        sub = swap_number_word(sub) or sub
    title = full_title(main, sub)
    if variant == "case":
        title = title.upper() if r.random() < 0.5 else title.lower()
    elif variant == "punctuation":
        title = punctuate(title, r)
    title = full_title(title, None, series, number if series else None) + marker
    words = author.split()
    if variant == "initials" and len(words) > 1:
        initials = [w[0] + "." for w in words[:-1]]
        author = (r.choice([" ", ""]).join(initials) if len(initials) > 1 else initials[0]) + " " + words[-1]
    elif variant == "misspelt_first" and len(words) > 1:
        author = " ".join([typo(words[0], r)] + words[1:])
    elif variant == "last_first" and len(words) > 1:
        author = f"{words[-1]}, {' '.join(words[:-1])}"
    return title, author, dropped_sub, dropped_number


def applicable(book, variant):
    if variant in ("no_subtitle",):
        return book["sub"] is not None
    if variant == "subtitle_added":
        return False  # only after a first row without the subtitle
    if variant == "no_series":
        return book["series"] is not None
    if variant == "series_added":
        return book["series"] is None and book["number"] is not None
    if variant in ("initials", "misspelt_first", "last_first"):
        return len(book["author"].split()) > 1 and not re.search(r"[,&;]", book["author"])
    if variant == "number_word":
        return swap_number_word(book["sub"]) is not None
    return True


rows = []
for book_id in book_order:
    book = books[book_id]
    r = random.Random(f"{seed}|rows|{book['main']}|{book['sub']}|{book['number']}|{book['author']}")
    count = r.choices([1, 2, 3, 4], [2, 4, 3, 1])[0]
    extra = real_extra.get(book_id, [])
    first_variant = "exact"
    # Some books are first met without their subtitle, then with it (the subtitle added later).
    if book["sub"] and not book["distinct"] and r.random() < 0.15:
        first_variant = "no_subtitle"
    shown = [first_variant] + (["subtitle_added"] if first_variant == "no_subtitle" and count > 1 else [])
    options = [v for v in VARIANTS if applicable(book, v)]
    while len(shown) < count:
        shown.append(r.choice(options))
    for index, variant in enumerate(shown):
        title, author, dropped_sub, dropped_number = variant_row(book, variant, r)
        rows.append({"book": book_id, "variant": variant, "title": title, "author": author, "dropped_sub": dropped_sub,
                     "dropped_number": dropped_number})
    if book.get("raw") and shown[0] == "exact":
        rows[-count]["title"] = book["raw"]  # the real row as its export wrote it
    for real_row in extra:
        title = real_row["raw"]
        rows.append({"book": book_id, "variant": "real_other_export", "title": title, "author": real_row["author"],
                     "dropped_sub": real_row["sub"] is None and book["sub"] is not None, "dropped_number": False})


# Ambiguity: the books a row fits by what it shows. ----------------------------------------------
by_main_author = {}
for book_id, book in books.items():
    by_main_author.setdefault((norm_main(book["main"]), surname(book["author"])), []).append(book)


SHOWN_NUMBER = re.compile(r"\(([^()]*), #([^()]+)\)")


def fits(row, book, own):
    """Whether `book` could have been written as what `row` shows, by the variants above: any book's
    subtitle may be dropped (`no_subtitle` drops `Book 3` as readily as `A Guide`), and a number
    tells books apart only when the row shows one (a series suffix)."""
    if book["id"] == own["id"]:
        return True
    if given_initial(book["author"]) != given_initial(own["author"]):
        return False
    if not row["dropped_sub"] and norm(book["sub"] or "") != norm(own["sub"] or ""):
        return False
    shown = SHOWN_NUMBER.search(row["title"])
    if shown and str(book["number"] or "") != shown.group(2).strip():
        return False
    return True


for row in rows:
    own = books[row["book"]]
    if row["dropped_sub"] or row["dropped_number"]:
        peers = by_main_author[(norm_main(own["main"]), surname(own["author"]))]
        row["ambiguous"] = sum(1 for b in peers if fits(row, b, own)) > 1
    else:
        row["ambiguous"] = False

# ISBNs: a book's rows carry its one ISBN or none; about half the rows none. -----------------------
for index, row in enumerate(rows):
    r = random.Random(f"{seed}|isbn|{row['title']}|{row['author']}|{index}")
    isbn = books[row["book"]]["isbn"]
    row["isbn"] = isbn if isbn and r.random() < 0.55 else None


def isbn10(isbn):
    if not isbn or not isbn.startswith("978"):
        return ""
    body = isbn[3:12]
    total = sum(int(d) * (10 - i) for i, d in enumerate(body))
    check = (11 - total % 11) % 11
    return body + ("X" if check == 10 else str(check))


def csv_cells(row, book_number, r):
    author = row["author"]
    if "," in author:
        last, first = [x.strip() for x in author.split(",", 1)]
        author_lf = author
    else:
        words = author.split()
        last, first = words[-1], " ".join(words[:-1])
        author_lf = f"{last}, {first}" if first else last
    shelf = r.choice(["read", "read", "to-read", "currently-reading"])
    year = r.randint(1950, 2024)
    added = f"{r.randint(2015, 2025)}/{r.randint(1, 12):02d}/{r.randint(1, 28):02d}"
    date_read = added if shelf == "read" and r.random() < 0.7 else ""
    kindle = row["isbn"] is None and r.random() < 0.6
    return [str(book_number), row["title"], author, author_lf, "",
            f'="{isbn10(row["isbn"])}"', f'="{row["isbn"] or ""}"', str(r.randint(0, 5) if shelf == "read" else 0),
            f"{r.uniform(3, 4.8):.2f}", r.choice(["Penguin", "Vintage", "O'Reilly Media", "Tor Books", ""]),
            "Kindle Edition" if kindle else r.choice(["Paperback", "Hardcover", "Mass Market Paperback"]),
            str(r.randint(90, 900)), str(year), str(year - r.randint(0, 30)), date_read, added, shelf,
            f"{shelf} (#{r.randint(1, 400)})", shelf, "", "", "", "1" if shelf == "read" else "0", "0"]


def second_entries(chosen):
    """Lines of rows that are the reader's second entry of their book in this file, by the
    two-entries rule (docs/library.md): every row has its own Book Id, so a row that dropped the
    subtitle beside a row of its book that shows it is another entry with another title, and two
    books unless an ISBN joins them (both rows carry the book's one ISBN). Such a row may stay a
    book of its own or join its own book, never another book."""
    shown = defaultdict(set)  # book → ISBNs of its rows that show the subtitle ("" for none)
    for _, row in chosen:
        if not row["dropped_sub"]:
            shown[row["book"]].add(row["isbn"] or "")
    return {number for number, row in chosen
            if row["dropped_sub"] and not row["ambiguous"] and row["book"] in shown
            and not (row["isbn"] and row["isbn"] in shown[row["book"]])}


def write(name, chosen):
    labels = []
    entries = second_entries(chosen)
    with open(f"{out}/{name}", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(HEADER)
        for line, (number, row) in enumerate(chosen, 2):
            writer.writerow(csv_cells(row, number, random.Random(f"{seed}|cells|{number}")))
            labels.append({"line": line, "book": row["book"], "variant": row["variant"], "ambiguous": row["ambiguous"],
                           "entry": number in entries})
    return labels


numbered = [(10_000_000 + index, row) for index, row in enumerate(rows)]
order = numbered[:]
rng.shuffle(order)
files = {"infile.csv": write("infile.csv", order)}
# Library mode: A gets each base book's first row and a share of the rest; B the others, so B holds
# other rows of A's books and siblings A never saw.
seen_books, in_a, in_b = set(), [], []
for number, row in order:
    book = books[row["book"]]
    r = random.Random(f"{seed}|split|{number}")
    first = row["book"] not in seen_books
    seen_books.add(row["book"])
    if first and book["source"] != "sibling":
        in_a.append((number, row))
    elif first and book["source"] == "sibling":
        (in_a if r.random() < 0.5 else in_b).append((number, row))
    else:
        (in_a if r.random() < 0.4 else in_b).append((number, row))
files["a.csv"] = write("a.csv", in_a)
files["b.csv"] = write("b.csv", in_b)

# A catalog in Open Library dump format holding about 70 % of the books, siblings included, each
# one work and one edition (its ISBN when it has one), for the modes enriched by lookup.
STAMP = "2026-10-01T00:00:00.000000"
author_keys = {}
with gzip.open(f"{out}/works.txt.gz", "wt", encoding="utf-8") as works, \
        gzip.open(f"{out}/editions.txt.gz", "wt", encoding="utf-8") as editions:
    for number, book_id in enumerate(book_order):
        book = books[book_id]
        if random.Random(f"{seed}|catalog|{book['main']}|{book['sub']}|{book['author']}").random() >= 0.7:
            continue
        name = first_author(book["author"])
        author = author_keys.setdefault(name, f"/authors/OLD{len(author_keys)}A")
        work = {"key": f"/works/OLD{number}W", "title": book["main"], "authors": [{"author": {"key": author}}]}
        book["work"] = work["key"]
        edition = {"key": f"/books/OLD{number}M", "title": book["main"], "works": [{"key": work["key"]}],
                   "type": {"key": "/type/edition"}, "authors": [{"key": author}], "publishers": ["Some Press"]}
        if book["sub"]:
            edition["subtitle"] = book["sub"]
        if book["isbn"]:
            edition["isbn_13"] = [book["isbn"]]
        works.write(f"/type/work\t{work['key']}\t1\t{STAMP}\t{json.dumps(work, ensure_ascii=False)}\n")
        editions.write(f"/type/edition\t{edition['key']}\t1\t{STAMP}\t{json.dumps(edition, ensure_ascii=False)}\n")
with gzip.open(f"{out}/authors.txt.gz", "wt", encoding="utf-8") as authors:
    for name, key in author_keys.items():
        record = {"key": key, "name": name}
        authors.write(f"/type/author\t{key}\t1\t{STAMP}\t{json.dumps(record, ensure_ascii=False)}\n")

book_labels = {b["id"]: {"title": full_title(b["main"], b["sub"], b["series"], b["number"] if b["series"] else None),
                         "author": b["author"], "family": b["family"], "kind": b["kind"], "source": b["source"],
                         "work": b.get("work")}
               for b in books.values()}
with open(f"{out}/labels.json", "w", encoding="utf-8") as f:
    json.dump({"files": files, "books": book_labels}, f, ensure_ascii=False)
no_isbn = sum(1 for row in rows if not row["isbn"])
real_books = sum(1 for b in books.values() if b["source"] == "real")
print(f"fixtures: {len(rows)} rows ({no_isbn / len(rows):.0%} without ISBN), {len(books)} books in {family_counter[0]} "
      f"families ({real_books} real seeds, {left_out} real rows left out: truth not plain); "
      f"a.csv {len(in_a)} rows, b.csv {len(in_b)} rows; {sum(r['ambiguous'] for r in rows)} ambiguous rows",
      file=sys.stderr)
