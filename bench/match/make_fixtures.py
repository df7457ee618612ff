#!/usr/bin/env python3
"""Labelled matching fixtures: import rows, a catalog in Open Library dump format, and the truth.

make_fixtures.py OUT_DIR SEED PARSED.ndjson.gz...

PARSED files are `shelfline-parse` outputs (real exports and the synthetic generator's). Rows are
grouped into books by normalised title and first author. Each book is *present* in the catalog
(one work, one to three editions, written the way Open Library writes them: subtitle in its own
field, series suffix dropped, author names `First Last`, sometimes without the row's diacritics,
`&`, leading article or punctuation) or *absent* (at least 20% of the books, so at least ~20% of the
rows). Every book gets near-miss distractors of one or more kinds (see KINDS), each its own work;
a few absent books' ISBNs are reused by an unrelated edition (`isbn_conflict`). ISBNs are removed
from half the rows. Unless MATCH_NEAR_MISS_SIBLINGS=0 (the earlier fixtures), every absent book
also gets one or two siblings of the kinds a person would be asked about (issue 21): a companion, a
`II`, the same main title with another subtitle (`other_subtitle`), the same title by an author of
the same surname and another given name (`same_surname`); about a third of present books get one.

Writes OUT_DIR/editions.txt.gz, works.txt.gz, authors.txt.gz, rows.ndjson.gz (the rows in input
order) and labels.json ({"rows": [{"book", "present", "work", "kinds", "siblings"}], "works": {key: kind}};
`siblings`: how many near-miss works the book has in the catalog).
Deterministic for a seed; nothing is tuned to the matcher.
"""
import gzip
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from labelled_books import FreshISBNs, UnionFind, fold, split_subtitle, strip_series  # noqa: E402

out, seed, inputs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
NEAR_MISS_SIBLINGS = os.environ.get("MATCH_NEAR_MISS_SIBLINGS", "1") != "0"
rng = random.Random(seed)
STAMP = "2026-10-01T00:00:00.000000"

KINDS = [
    "sequel_digit", "sequel_roman", "sequel_word", "volume", "companion", "summary", "study_guide", "workbook",
    "boxed_set", "omnibus", "graphic_novel", "other_author", "same_author_other", "translated",
]


def norm(text):
    return " ".join(re.findall(r"\w+", fold(text).lower()))


ROMAN = ["II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XII"]
WORDS = {2: ["Two", "Second"], 3: ["Three", "Third"], 4: ["Four", "Fourth"], 5: ["Five", "Fifth"]}
OTHER_SUBTITLES = ["A Reader", "The Later Years", "Further Essays", "A Second Look", "New Stories", "Collected Letters"]
GIVEN = ["Anna", "Benedikt", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hiroshi", "Ingrid", "Jonathan", "Katarina",
         "Leonard", "Marisol", "Nikolai", "Oksana", "Patrick", "Quentin", "Rosalind", "Sebastian", "Theresa", "Ulrich",
         "Valentina", "Walter", "Yolanda", "Zachary"]
GERMAN = {"the": "Der", "of": "der", "and": "und", "night": "Nacht", "house": "Haus", "war": "Krieg", "world": "Welt",
          "king": "König", "life": "Leben", "time": "Zeit", "city": "Stadt", "dark": "dunkle", "book": "Buch",
          "last": "letzte", "year": "Jahr", "stars": "Sterne", "game": "Spiel", "man": "Mann", "blood": "Blut"}


def distractor_title(kind, main, sub, r):
    n = r.randint(2, 5)
    if kind == "sequel_digit":
        return r.choice([f"{main} {n}", f"{main} {n}: {sub}" if sub else f"{main}, {n}"]), None
    if kind == "sequel_roman":
        numeral = r.choice(ROMAN)
        return (f"{main}: {sub} {numeral}" if sub and r.random() < 0.5 else f"{main} {numeral}"), None
    if kind == "sequel_word":
        word = r.choice(WORDS[n])
        return r.choice([f"{main} {word}", f"{main}: Book {word}", f"{main}: Part {word}"]), None
    if kind == "volume":
        return r.choice([f"{main}, Volume {n}", f"{main}: Vol. {n}", f"{main} (Part {n})".replace("(", "- ").replace(")", ""),
                         f"{main}, Band {n}", f"{main}, Tome {n}", f"{main}, Tomo {n}", f"{main}, Teil {n}"]), None
    if kind == "companion":
        return r.choice([(main, "A Companion"), (f"The {main} Companion", None), (f"Begleitbuch zu {main}", None),
                         (main, "le compagnon"), (f"{main}: Reader's Guide", None)])
    if kind == "summary":
        return r.choice([(f"Summary of {main}", sub), (main, "Summary & Analysis"), (f"Zusammenfassung: {main}", None),
                         (f"Resumen de {main}", None), (f"{main}: Résumé", None)])
    if kind == "study_guide":
        return r.choice([(main, "Study Guide"), (f"Study Guide for {main}", None), (f"{main} (SparkNotes)", None),
                         (f"{main}: Lektürehilfe", None), (f"{main}: Guía de estudio", None), (main, "Notes")])
    if kind == "workbook":
        return r.choice([(f"Workbook for {main}", None), (main, "Workbook"), (f"{main}: Arbeitsbuch", None),
                         (f"{main} - Cahier d'exercices", None), (f"{main}: Cuaderno", None)])
    if kind == "boxed_set":
        return r.choice([(f"{main} Boxed Set", None), (f"{main} Box Set", None), (main, "Coffret"), (f"{main} Schuber", None),
                         (f"{main}: Estuche", None)])
    if kind == "omnibus":
        return r.choice([(f"{main} Omnibus", None), (f"{main} Trilogy", None), (f"{main}: The Complete Collection", None),
                         (f"{main}: Gesamtausgabe", None), (f"{main}: L'intégrale", None), (f"{main}: Trilogía", None)])
    if kind == "graphic_novel":
        return r.choice([(main, "The Graphic Novel"), (f"{main} (Graphic Novel)".replace("(", "- ").replace(")", ""), None),
                         (main, "roman graphique"), (main, "novela gráfica")])
    if kind == "translated":
        words = main.split()
        translated = [GERMAN.get(w.lower(), w[::-1].capitalize()) for w in words]
        return " ".join(translated) or "Übersetzung", None
    raise ValueError(kind)


def catalog_variant(title, r):
    """How Open Library might write the row's own title: same words, other surface."""
    choice = r.random()
    if choice < 0.15:
        return title.lower() if r.random() < 0.5 else title.upper()
    if choice < 0.25:
        return fold(title)
    if choice < 0.35:
        return title.replace(" and ", " & ") if " and " in title else title.replace("&", "and")
    if choice < 0.42 and re.match(r"(?i)^(the|a|an) ", title):
        return title.split(" ", 1)[1]
    if choice < 0.5:
        return title.replace("'", "’").replace(",", "").replace(".", "")
    return title


def author_variant(name, r):
    choice = r.random()
    if choice < 0.15:
        return fold(name)
    if choice < 0.3:
        # Initials spaced or joined (`N.K.` ↔ `N. K.`).
        return re.sub(r"\b([A-Z])\.(?=[A-Z])", r"\1. ", name) if re.search(r"[A-Z]\.[A-Z]", name) else re.sub(r"\b([A-Z])\. (?=[A-Z]\.)", r"\1.", name)
    return " ".join(name.split())


rows = []
for path in inputs:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        rows.extend(json.loads(line) for line in f)

SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "phd", "md", "dr"}
ARTICLES = {"the", "a", "an", "le", "la", "les", "l", "el", "los", "las", "der", "die", "das"}


def title_key(title):
    """The main title as people remember it: no series or edition notes, no subtitle, no leading
    article, `&` read as `and`, apostrophes and punctuation gone."""
    main = split_subtitle(strip_series(title))[0].replace("&", " and ").replace("'", "").replace("’", "")
    words = norm(main).split()
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words)


def surname(author):
    words = [w for w in norm(author).split() if w not in SUFFIXES]
    return words[-1] if words else ""


def book_key(title, author):
    return title_key(title) + "|" + surname(author)


# Books. By the definition a present book is one with the same title and author as the
# row, so rows whose main titles agree and whose author sets share a surname are one book, and so
# are rows sharing an ISBN (an export's translation or other edition of the same work).
groups_of = UnionFind()
find, union = groups_of.find, groups_of.union


row_keys = []
by_title_surname = {}
by_isbn = {}
for index, row in enumerate(rows):
    title = row.get("titleBase") or strip_series(row.get("title") or "")
    find(index)
    for name in [row.get("author") or ""] + (row.get("additionalAuthors") or []):
        if surname(name):
            slot = (title_key(title), surname(name))
            if slot in by_title_surname:
                union(index, by_title_surname[slot])
            else:
                by_title_surname[slot] = index
    for field in ("isbn13", "isbn10"):
        if row.get(field):
            if row[field] in by_isbn:
                union(index, by_isbn[row[field]])
            else:
                by_isbn[row[field]] = index
books = {}
order = []
for index, row in enumerate(rows):
    title = row.get("titleBase") or strip_series(row.get("title") or "")
    key = f"book{find(index)}"
    row_keys.append(key)
    if key not in books:
        books[key] = {"title": title, "authors": [row.get("author") or ""] + (row.get("additionalAuthors") or []), "rows": [],
                      "isbns": set(), "keys": set()}
        order.append(key)
    books[key]["rows"].append(row)
    # The true work carries every author any of the book's rows names.
    for name in [row.get("author") or ""] + (row.get("additionalAuthors") or []):
        if name.strip() and surname(name) not in {surname(n) for n in books[key]["authors"]}:
            books[key]["authors"].append(name)
    for name in books[key]["authors"]:
        books[key]["keys"].add(book_key(title, name))
    if row.get("isbn13"):
        books[key]["isbns"].add(row["isbn13"])

authors = {}


def author_key(name):
    if name not in authors:
        authors[name] = f"/authors/OLM{len(authors)}A"
    return authors[name]


works, editions, work_kind = [], [], {}
edition_counter = [0]
used_isbns = {i for b in books.values() for i in b["isbns"]}

fresh_isbn = FreshISBNs(100_000, used_isbns)


def add_work(title, author_names, kind, edition_specs):
    key = f"/works/OLM{len(works)}W"
    names = [n for n in author_names if n.strip()]
    works.append({"key": key, "title": title, "authors": [{"author": {"key": author_key(n)}} for n in names]})
    work_kind[key] = kind
    for spec in edition_specs:
        edition_counter[0] += 1
        ekey = f"/books/OLM{edition_counter[0]}M"
        data = {"key": ekey, "title": spec["title"], "works": [{"key": key}], "type": {"key": "/type/edition"},
                "publishers": [spec.get("publisher") or "Some Press"], "publish_date": str(spec.get("year") or 2001)}
        if spec.get("subtitle"):
            data["subtitle"] = spec["subtitle"]
        if spec.get("isbn"):
            data["isbn_13"] = [spec["isbn"]]
        if spec.get("authors_on_edition", True) and names:
            data["authors"] = [{"key": author_key(n)} for n in spec.get("author_names", names)]
        editions.append(data)
    return key


all_keys = set().union(*(b["keys"] for b in books.values()))
all_authors = sorted({b["authors"][0] for b in books.values() if b["authors"][0].strip()})
all_titles = [b["title"] for b in books.values()]
row_authors = {(title_key(b["title"]), norm(n)) for b in books.values() for n in b["authors"]}
labels_by_book = {}
absent_with_isbn = []
for key in order:
    book = books[key]
    r = random.Random(f"{seed}|{key}")
    title, names = book["title"], book["authors"]
    present = bool(title.strip()) and r.random() >= 0.25
    works_before = len(works)
    main, sub = split_subtitle(title)
    work = None
    if present:
        specs = []
        count = r.randint(1, 3)
        isbns = sorted(book["isbns"])
        for index in range(count):
            shown = catalog_variant(title, r)
            shown_main, shown_sub = split_subtitle(shown)
            if shown_sub is not None and r.random() < 0.3:
                shown_sub = None  # the catalog knows the title without its subtitle
            specs.append({"title": shown_main, "subtitle": shown_sub,
                          "isbn": isbns[index] if index < len(isbns) else fresh_isbn(),
                          "author_names": [author_variant(n, r) for n in names if n.strip()],
                          "authors_on_edition": r.random() < 0.8, "year": 1990 + index})
        work = add_work(shown_main if r.random() < 0.5 else title, [author_variant(n, r) for n in names], "true", specs)
    elif book["isbns"]:
        absent_with_isbn.append(key)
    kinds = r.sample(KINDS, r.randint(1, 3)) if title.strip() else []
    for kind in kinds:
        if kind == "other_author":
            other = r.choice(all_authors)
            if book_key(title, other) in all_keys:
                continue  # another row's book: present by definition, not a near miss
            add_work(title, [other], kind, [{"title": main, "subtitle": sub, "isbn": fresh_isbn()}])
        elif kind == "same_author_other":
            other = r.choice(all_titles)
            if any(book_key(other, n) in all_keys for n in names):
                continue  # another row's book: present by definition, not a near miss
            omain, osub = split_subtitle(other)
            add_work(other, names, kind, [{"title": omain, "subtitle": osub, "isbn": fresh_isbn()}])
        else:
            dtitle, dsub = distractor_title(kind, main, sub, r)
            if any(book_key(dtitle, n) in all_keys for n in names):
                continue
            add_work(dtitle, names, kind, [{"title": dtitle, "subtitle": dsub, "isbn": fresh_isbn()}])
    siblings = len(works) - works_before - (1 if present else 0)
    if NEAR_MISS_SIBLINGS and title.strip():
        # Issue 21: the near misses a person would otherwise be asked about, for every absent book.
        r2 = random.Random(f"{seed}|sibling|{key}")
        author = next((n for n in names if n.strip()), "")
        given = author.split()[:-1]
        # Another subtitle only where every row shows the book's own: a row without one would fit both.
        subtitled = sub and all(split_subtitle(row.get("titleBase") or strip_series(row.get("title") or ""))[1]
                                for row in book["rows"])
        choices = ["companion", "sequel_roman"] + (["other_subtitle"] if subtitled else []) + (["same_surname"] if given else [])
        extra = r2.sample(choices, r2.randint(1, 2)) if not present else [r2.choice(choices)] if r2.random() < 0.33 else []
        for kind in extra:
            if kind == "other_subtitle":
                osub = r2.choice([s for s in OTHER_SUBTITLES if norm(s) != norm(sub)])
                dtitle, dsub, dnames = main, osub, names
            elif kind == "same_surname":
                initial = norm(given[0])[:1]
                other = f"{r2.choice([g for g in GIVEN if g[0].lower() != initial])} {author.split()[-1]}"
                if (title_key(title), norm(other)) in row_authors:
                    continue  # another row's book: present by definition, not a near miss
                dtitle, dsub, dnames = main, sub, [other]
            else:
                dtitle, dsub = distractor_title(kind, main, sub, r2)
                dnames = names
                if any(book_key(dtitle, n) in all_keys for n in names):
                    continue
            add_work(dtitle, dnames, kind, [{"title": dtitle, "subtitle": dsub, "isbn": fresh_isbn()}])
            siblings += 1
            if kind not in kinds:
                kinds.append(kind)
    labels_by_book[key] = {"present": present, "work": work, "kinds": kinds, "siblings": siblings}

# Reused ISBNs: an unrelated book by another author carries an absent book's ISBN.
for key in absent_with_isbn[: max(1, len(absent_with_isbn) // 10)]:
    book = books[key]
    r = random.Random(f"{seed}|conflict|{key}")
    other_title = r.choice(all_titles)
    other_author = r.choice(all_authors)
    if book_key(other_title, other_author) in book["keys"] or book_key(book["title"], other_author) in book["keys"]:
        continue
    add_work(other_title, [other_author], "isbn_conflict", [{"title": other_title, "isbn": sorted(book["isbns"])[0]}])
    labels_by_book[key]["kinds"].append("isbn_conflict")


def gz(name):
    return gzip.open(f"{out}/{name}", "wt", encoding="utf-8")


with gz("authors.txt.gz") as f:
    for name, key in authors.items():
        f.write(f"/type/author\t{key}\t1\t{STAMP}\t" + json.dumps({"key": key, "name": name}, ensure_ascii=False) + "\n")
with gz("works.txt.gz") as f:
    for work in works:
        f.write(f"/type/work\t{work['key']}\t1\t{STAMP}\t" + json.dumps(work, ensure_ascii=False) + "\n")
with gz("editions.txt.gz") as f:
    for edition in editions:
        f.write(f"/type/edition\t{edition['key']}\t1\t{STAMP}\t" + json.dumps(edition, ensure_ascii=False) + "\n")

labels = []
with gz("rows.ndjson.gz") as f:
    for index, row in enumerate(rows):
        key = row_keys[index]
        if index % 2 == 1:
            row.pop("isbn13", None)
            row.pop("isbn10", None)
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
        labels.append(dict(labels_by_book[key], book=key))
with open(f"{out}/labels.json", "w") as f:
    json.dump({"rows": labels, "works": work_kind}, f)
present = sum(1 for label in labels if label["present"])
absent_books = [b for b in labels_by_book.values() if not b["present"]]
with_siblings = sum(1 for b in absent_books if b["siblings"])
print(f"fixtures: {len(rows)} rows, {len(books)} books, {present} rows present ({present / len(rows):.1%}), "
      f"{len(works)} works, {len(editions)} editions; {len(absent_books)} books absent "
      f"({len(absent_books) / len(books):.1%}), {with_siblings} of them with near-miss siblings", file=sys.stderr)
