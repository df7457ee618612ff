#!/usr/bin/env python3
"""Writes the sample Open Library catalog dump used by the examples and tests.

Hand-written for Shelfline: real book titles, invented keys (OL9xxxxx), invented distractor books.
Output: editions.txt.gz and works.txt.gz (gzip, mtime 0 so the bytes are reproducible) and
authors.txt (plain), each in the dump layout `type<TAB>key<TAB>revision<TAB>last_modified<TAB>JSON`.
Run from this directory: `python3 generate.py`.
"""
import gzip
import json

STAMP = "2026-10-01T00:00:00.000000"

AUTHORS = {
    "OL900001A": "Ursula K. Le Guin",
    "OL900002A": "Frank Herbert",
    "OL900003A": "Susanna Clarke",
    "OL900004A": "Emily St. John Mandel",
    "OL900005A": "Octavia E. Butler",
    "OL900006A": "Patrick Rothfuss",
    "OL900007A": "Antoine de Saint-Exupéry",
    "OL900008A": "Andy Weir",
    "OL900009A": "N. K. Jemisin",
    # Distractors: invented authors who share titles with the books above.
    "OL900101A": "Simon Ritter",
    "OL900102A": "Marisol Ventura",
    "OL900103A": "Harold Brenner",
    "OL900104A": "Brian Herbert",
}
# An author record that moved: editions still pointing at the old key resolve through the redirect.
REDIRECTS = {"OL900099A": "/authors/OL900005A"}

# work key: (title, [author keys], description)
WORKS = {
    "OL910001W": ("The Left Hand of Darkness", ["OL900001A"], "A human envoy to the planet Gethen, whose people have no fixed sex."),
    "OL910002W": ("A Wizard of Earthsea", ["OL900001A"], "Ged, a young mage, looses a shadow upon the world."),
    "OL910003W": ("The Tombs of Atuan", ["OL900001A"], None),
    "OL910004W": ("The Farthest Shore", ["OL900001A"], None),
    "OL910005W": ("The Dispossessed", ["OL900001A"], {"type": "/type/text", "value": "An ambiguous utopia: Shevek, a physicist, between two worlds."}),
    "OL910006W": ("Dune", ["OL900002A"], "Paul Atreides on the desert planet Arrakis."),
    "OL910007W": ("Dune Messiah", ["OL900002A"], None),
    "OL910008W": ("Children of Dune", ["OL900002A"], None),
    "OL910009W": ("Piranesi", ["OL900003A"], None),
    "OL910010W": ("Station Eleven", ["OL900004A"], None),
    "OL910011W": ("Kindred", ["OL900005A"], None),
    "OL910012W": ("Parable of the Sower", ["OL900005A"], None),
    "OL910013W": ("Parable of the Talents", ["OL900005A"], None),
    "OL910014W": ("The Name of the Wind", ["OL900006A"], None),
    "OL910015W": ("The Wise Man's Fear", ["OL900006A"], None),
    "OL910016W": ("Le Petit Prince", ["OL900007A"], None),
    "OL910017W": ("Project Hail Mary", ["OL900008A"], None),
    "OL910018W": ("The Martian", ["OL900008A"], None),
    "OL910019W": ("The Fifth Season", ["OL900009A"], None),
    "OL910020W": ("The Obelisk Gate", ["OL900009A"], None),
    # Distractors.
    "OL910101W": ("The Dispossessed", ["OL900101A"], None),
    "OL910102W": ("Kindred", ["OL900102A"], None),
    "OL910103W": ("Kindred Spirits", ["OL900102A"], None),
    "OL910104W": ("The Fifth Season", ["OL900103A"], None),
    "OL910105W": ("Dune: The Butlerian Jihad", ["OL900104A"], None),
}


def isbn13(body12):
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body12))
    return body12 + str((10 - total % 10) % 10)


# (edition key, work key, title, subtitle, isbn_13, isbn_10, publisher, date, pages, author keys or None)
EDITIONS = [
    ("OL920001M", "OL910001W", "The Left Hand of Darkness", None, ["9780441478125"], ["0441478123"], "Ace", "1987", 304, ["OL900001A"]),
    ("OL920002M", "OL910001W", "The Left Hand of Darkness", None, [isbn13("978030781023")], [], "Penguin", "2018", 286, ["OL900001A"]),
    ("OL920003M", "OL910002W", "A Wizard of Earthsea", None, ["9780547773742"], ["0547773749"], "Houghton Mifflin Harcourt", "2012", 183, ["OL900001A"]),
    ("OL920004M", "OL910003W", "The Tombs of Atuan", None, ["9781442459922"], [], "Saga Press", "September 2012", 180, ["OL900001A"]),
    ("OL920005M", "OL910004W", "The Farthest Shore", None, [isbn13("978144245993")], [], "Saga Press", "2012", 259, ["OL900001A"]),
    ("OL920006M", "OL910005W", "The Dispossessed", "An Ambiguous Utopia", [isbn13("978006051275")], [], "Harper Voyager", "1994", 387, ["OL900001A"]),
    ("OL920007M", "OL910005W", "The Dispossessed", None, [isbn13("978057507882")], [], "Gollancz", "2002", 319, ["OL900001A"]),
    ("OL920008M", "OL910101W", "The Dispossessed", "Poems", [isbn13("979888812001")], [], "Lantern Hill", "2011", 88, ["OL900101A"]),
    ("OL920009M", "OL910006W", "Dune", None, ["9780441172719"], ["0441172717"], "Ace", "1990", 604, ["OL900002A"]),
    ("OL920010M", "OL910006W", "Dune", None, [isbn13("978059309932")], [], "Ace", "2019", 896, ["OL900002A"]),
    ("OL920011M", "OL910006W", "Der Wüstenplanet", None, [isbn13("978345331717")], [], "Heyne", "2016", 800, ["OL900002A"]),
    ("OL920012M", "OL910007W", "Dune Messiah", None, [isbn13("978059309823")], [], "Ace", "2019", 352, ["OL900002A"]),
    ("OL920013M", "OL910008W", "Children of Dune", None, [isbn13("978059309824")], [], "Ace", "2019", 608, ["OL900002A"]),
    ("OL920014M", "OL910105W", "Dune", "The Butlerian Jihad", [isbn13("978076534077")], [], "Tor", "2002", 621, ["OL900104A"]),
    ("OL920015M", "OL910009W", "Piranesi", None, ["9781635575637"], ["163557563X"], "Bloomsbury Publishing", "2020", 245, ["OL900003A"]),
    ("OL920016M", "OL910010W", "Station Eleven", "A novel", ["9780385353304"], ["0385353308"], "Knopf", "2014", 333, ["OL900004A"]),
    # Kindred: this edition carries only an ISBN-10 (converted at indexing), authored via a redirected key.
    ("OL920017M", "OL910011W", "Kindred", None, [], ["0807083690"], "Beacon Press", "2004", 264, ["OL900099A"]),
    ("OL920018M", "OL910102W", "Kindred", None, [isbn13("979888812002")], [], "Riverside Lane", "2017", 312, ["OL900102A"]),
    ("OL920019M", "OL910103W", "Kindred Spirits", None, [isbn13("979888812003")], [], "Riverside Lane", "2019", 290, ["OL900102A"]),
    ("OL920020M", "OL910012W", "Parable of the Sower", None, [isbn13("978153874732")], [], "Grand Central", "2019", 345, ["OL900005A"]),
    ("OL920021M", "OL910013W", "Parable of the Talents", None, [isbn13("978153875173")], [], "Grand Central", "2019", 400, ["OL900005A"]),
    ("OL920022M", "OL910014W", "The Name of the Wind", None, ["9780756404741"], ["0756404746"], "DAW", "2007", 662, ["OL900006A"]),
    ("OL920023M", "OL910015W", "The Wise Man's Fear", None, [isbn13("978075640473")], [], "DAW", "2011", 994, ["OL900006A"]),
    ("OL920024M", "OL910016W", "Le Petit Prince", None, ["9782070612758"], ["2070612759"], "Gallimard Jeunesse", "2007", 97, ["OL900007A"]),
    ("OL920025M", "OL910016W", "The Little Prince", None, [isbn13("978015601219")], [], "Harcourt", "2000", 96, ["OL900007A"]),
    ("OL920026M", "OL910017W", "Project Hail Mary", None, ["9780593135204"], ["0593135202"], "Ballantine Books", "2021", 476, None),
    ("OL920027M", "OL910018W", "The Martian", None, [isbn13("978055341802")], [], "Crown", "2014", 369, ["OL900008A"]),
    ("OL920028M", "OL910019W", "The Fifth Season", None, [isbn13("978031622929")], [], "Orbit", "2015", 468, ["OL900009A"]),
    ("OL920029M", "OL910020W", "The Obelisk Gate", None, [isbn13("978031622926")], [], "Orbit", "2016", 410, ["OL900009A"]),
    ("OL920030M", "OL910104W", "The Fifth Season", None, [isbn13("979888812004")], [], "Brenner House", "2008", 220, ["OL900103A"]),
]


def line(kind, key, data):
    data = dict(data, key=key, type={"key": kind}, revision=1,
                last_modified={"type": "/type/datetime", "value": STAMP})
    return f"{kind}\t{key}\t1\t{STAMP}\t{json.dumps(data, ensure_ascii=False, sort_keys=True)}\n"


def write_gzip(path, lines):
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        out.write("".join(lines).encode("utf-8"))


editions = []
for key, work, title, subtitle, i13, i10, publisher, date, pages, authors in EDITIONS:
    data = {"title": title, "works": [{"key": f"/works/{work}"}], "publishers": [publisher], "publish_date": date,
            "number_of_pages": pages, "covers": [int(key[2:-1])]}
    if subtitle:
        data["subtitle"] = subtitle
    if i13:
        data["isbn_13"] = i13
    if i10:
        data["isbn_10"] = i10
    if authors:  # editions without authors take the work's
        data["authors"] = [{"key": f"/authors/{a}"} for a in authors]
    editions.append(line("/type/edition", f"/books/{key}", data))
write_gzip("editions.txt.gz", editions)

works = []
for key, (title, authors, description) in WORKS.items():
    data = {"title": title, "authors": [{"author": {"key": f"/authors/{a}"}, "type": {"key": "/type/author_role"}} for a in authors]}
    if description:
        data["description"] = description
    works.append(line("/type/work", f"/works/{key}", data))
write_gzip("works.txt.gz", works)

with open("authors.txt", "w", encoding="utf-8") as out:
    for key, name in AUTHORS.items():
        out.write(line("/type/author", f"/authors/{key}", {"name": name}))
    for key, location in REDIRECTS.items():
        out.write(line("/type/redirect", f"/authors/{key}", {"location": location}))
