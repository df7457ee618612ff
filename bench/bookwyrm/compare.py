#!/usr/bin/env python3
"""Row by row: what BookWyrm's importer reads from each sample export, against what Shelfline's
library holds after `shelfline run` of the same file.

Usage: compare.py SAMPLES_DIR BIN_DIR WORK_DIR   (bench/bookwyrm/run.sh passes them)
Prints, per format: rows, kept, skipped by the source, disagreements by field, each disagreement,
and what Shelfline keeps that BookWyrm's reading drops. Exit 1 when any row disagrees or is lost.

How BookWyrm reads each file (learned from bookwyrm-social/bookwyrm, written here anew):
- bookwyrm/views/imports/import_data.py: which importer reads which source (anything not named,
  a hand-made spreadsheet included, goes to GoodreadsImporter), the file decoded with the
  importer's `encoding` through TextIOWrapper.
- bookwyrm/importers/importer.py, Importer:
  - create_job: csv.DictReader with the importer's `delimiter`.
  - create_row_mappings: for each field of `row_mappings_guesses` in order, the first header (in
    header order) whose lower-case name is one of its guesses; a header taken is not offered to
    later fields (so a single `isbn` column becomes isbn_10 and never isbn_13).
  - normalize_row: field -> that column's raw cell (None when unmapped or the row is short).
  - get_shelf: the shelf cell lower-cased, matched against shelf_mapping_guesses (to-read, read,
    reading); any other non-empty value is kept as is (a custom shelf of that name).
- goodreads_import.py (also the generic spreadsheet), storygraph_import.py: Importer as it is.
- librarything_import.py: tab-separated, ISO-8859-1; `[` and `]` removed from every cell;
  isbn_13 is the second item of the `ISBNs` cell split on ", "; get_shelf: date read -> read,
  date started -> reading, else the shelf column, else to-read.
- calibre_import.py: `timestamp` is also a date-added guess; get_shelf falls back to to-read.
- bookwyrm_import.py, BookwyrmBooksImporter: Importer plus shelf_name and review_published.
- openreads_import.py: `readings` split on ";", its FIRST item split on "|" gives date started
  and finished (ISO timestamps reduced to dates), date_added reduced likewise; status finished /
  in_progress / abandoned -> read / reading / stopped-reading; get_shelf as LibraryThing's.
- openlibrary_import.py: `Edition Id` / `Work Id` are keys; `Bookshelf` the shelf.
- bookwyrm/models/import_job.py, ImportItem: `isbn` = unquote_string(isbn_13) or
  unquote_string(isbn_10) (unquote_string turns ="…" into …); `rating` = float(cell) or None;
  `_parse_datefield` = dateutil.parser.parse(cell, default=1970-01-01); `reads`: the start date,
  else (the "Goodreads special case") date added when the shelf is reading, or read with a read
  date; a read date keeps the start only when it is earlier; `review` = review_body.
  handle_imported_book: a rating of 0 makes no rating (`item.rating or item.review`); the shelf
  is found by name, then by identifier (to-read, reading, read, stopped-reading), else created.

The comparison's rules (each where BookWyrm's reading is not a statement of the source):
- BOM: a UTF-8 byte-order mark is not content. BookWyrm decodes with "UTF-8", so a BOM would stay
  in its first header name and lose that column (Calibre's catalog starts with one); here it is
  dropped before BookWyrm's rules run. LibraryThing's exports are UTF-8: BookWyrm's ISO-8859-1
  would turn non-ASCII text into mojibake, so they are decoded as UTF-8 here.
- Text fields (title, author, review) are compared with edge whitespace removed.
- Title: Goodreads writes a book's series in its title (`Dune (Dune, #1)`); BookWyrm keeps the
  whole cell (and drops the parenthesis only to search), Shelfline the title with the series and
  its position apart. BookWyrm's title must be Shelfline's, or Shelfline's followed by its series.
- A field BookWyrm's importer has no column for in this file (no header among its guesses, such
  as Openreads' `my_review`) is no statement of the row: a value Shelfline holds there is "kept
  more", not a disagreement.
- Authors: BookWyrm keeps the author cell as one search string. It must name, in order, the first
  of Shelfline's authors (author, then additionalAuthors), split on the list separator the source
  writes (StoryGraph and BookWyrm ", ", Calibre " & "); LibraryThing's `Last, First` is the same
  person as Shelfline's `First Last`.
- ISBNs: BookWyrm searches by whichever of isbn_13 / isbn_10 holds a value, whatever its length
  (a 13-digit ISBN in a single `isbn` column lands in isbn_10); so each value BookWyrm reads is
  classed by its digits as an ISBN-10 or -13 (anything else, a StoryGraph UID, is no ISBN). An
  ISBN-10 or -13 Shelfline holds where BookWyrm has none is "kept more" when it is the other form
  of one BookWyrm has, or comes from a column BookWyrm does not read (Calibre's identifiers).
- Rating: 0 is unrated (BookWyrm makes no rating of it).
- Shelf: BookWyrm's built-in identifiers to-read / reading / read / stopped-reading are Shelfline's
  to-read / currently-reading / read / did-not-finish. A custom shelf named as a did-not-finish
  shelf (did-not-finish, dnf, abandoned: what the user's own shelf says) is did-not-finish.
  BookWyrm's fallback to-read, where the row states no reading state at all (a LibraryThing row
  without dates), is BookWyrm's default, not the row's: Shelfline may leave the state unset.
  Openreads' `status` is Openreads' own statement of the state; BookWyrm's get_shelf lets a
  reading's dates outrank it (an abandoned book with a start date would be "reading"), so where
  the row has a status BookWyrm maps, that status's shelf is the one compared.
  A custom shelf (BookWyrm's own export: `shelf` a slug, `shelf_name` its name) is a shelf of
  Shelfline's (`shelf` or `shelves`, by either); the reading state Shelfline takes from the same
  row's dates then stands beside it (BookWyrm's reading of those dates is compared as dates).
- Reading dates: BookWyrm keeps one reading; Shelfline keeps every reading (StoryGraph's Dates
  Read, Openreads' readings), so BookWyrm's reading must be one of Shelfline's. A start date
  BookWyrm takes from the date added (the "Goodreads special case") is a guess, not the row's,
  and is not compared (nor is a reading made of that guess alone). A reading Shelfline holds
  where BookWyrm has none is "kept more".
- Openreads `deleted` rows are in Openreads' bin: BookWyrm has no rule for them and imports them;
  Shelfline skips them (counted apart). They are listed as skipped by the source, not compared.
- Open Library's reading log has no title: Shelfline's title is the key until a lookup fills it.
"""

import csv
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime

try:
    import dateutil.parser as dateparser
except ImportError:  # The forms the samples use, read as dateutil reads them.
    dateparser = None

FIELDS = ["title", "author", "isbn10", "isbn13", "rating", "shelf", "added", "started", "finished", "review"]

BASE_GUESSES = [
    ("id", ["id", "book id"]),
    ("title", ["title"]),
    ("authors", ["author_text", "author", "authors", "primary author"]),
    ("isbn_10", ["isbn_10", "isbn10", "isbn", "isbn/uid"]),
    ("isbn_13", ["isbn_13", "isbn13", "isbn", "isbns", "isbn/uid"]),
    ("shelf", ["shelf", "exclusive shelf", "read status", "bookshelf"]),
    ("review_name", ["review_name", "review name"]),
    ("review_body", ["review_content", "my review", "review"]),
    ("rating", ["my rating", "rating", "star rating"]),
    ("date_added", ["shelf_date", "date_added", "date added", "entry date", "added"]),
    ("date_started", ["start_date", "date started", "started"]),
    ("date_finished", ["finish_date", "date finished", "last date read", "date read", "finished"]),
]
SHELF_GUESSES = {
    "to-read": ["to-read", "want to read"],
    "read": ["read", "already read"],
    "reading": ["currently-reading", "reading", "currently reading"],
}
# Each sample: (file, BookWyrm importer, delimiter, the source's author list separator).
SAMPLES = [
    ("goodreads.csv", "goodreads", ",", None),
    ("storygraph.csv", "storygraph", ",", ", "),
    ("librarything.tsv", "librarything", "\t", None),
    ("calibre.csv", "calibre", ",", " & "),
    ("bookwyrm.csv", "bookwyrm", ",", ", "),
    ("openreads.csv", "openreads", ",", None),
    ("openlibrary.csv", "openlibrary", ",", None),
    ("generic.csv", "goodreads", ",", None),
]
DNF_NAMES = {"did-not-finish", "dnf", "abandoned"}


# ---- BookWyrm's reading ------------------------------------------------------------------------


def guesses(importer):
    """Importer.row_mappings_guesses as each importer class extends it."""
    rows = [(field, list(names)) for field, names in BASE_GUESSES]
    if importer == "calibre":
        rows = [(f, n + (["timestamp"] if f == "date_added" else [])) for f, n in rows]
    if importer == "bookwyrm":
        rows += [("shelf_name", ["shelf_name"]), ("review_published", ["review_published"])]
    if importer == "openreads":
        rows += [("openlibrary_key", ["olid"]), ("pages", ["pages"]), ("description", ["description"]),
                 ("physical_format", ["book_format"]), ("published_date", ["publication_year"])]
    if importer == "openlibrary":
        rows += [("openlibrary_key", ["edition id"]), ("openlibrary_work_key", ["work id"])]
    return rows


def row_mappings(importer, headers):
    """Importer.create_row_mappings."""
    headers = list(headers)
    mappings = {}
    for key, names in guesses(importer):
        values = [h for h in headers if h.lower() in names]
        value = values[0] if values else None
        if value:
            headers.remove(value)
        mappings[key] = value
    return mappings


def iso_day(text):
    """openreads_import.parse_iso_timestamp."""
    if not text:
        return text
    return datetime.fromisoformat(text).date().isoformat()


def normalize(importer, entry, mappings):
    """normalize_row of each importer."""
    unbracket = importer == "librarything"
    normalized = {}
    for key, column in mappings.items():
        value = entry.get(column) if column else None
        if unbracket and value:
            value = re.sub(r"\[|\]", "", value)
        normalized[key] = value
    if importer == "librarything":
        items = normalized["isbn_13"].split(", ") if normalized.get("isbn_13") else []
        normalized["isbn_13"] = items[1] if len(items) > 1 else None
    if importer == "goodreads":
        normalized["goodreads_key"] = normalized["id"]
    if importer == "openreads":
        readings = entry.get("readings").split(";") if entry.get("readings") else []
        if readings:
            dates = readings[0].split("|")
            normalized["date_started"] = iso_day(dates[0]) or None
            normalized["date_finished"] = iso_day(dates[1]) or None
        if normalized.get("date_added"):
            normalized["date_added"] = iso_day(normalized["date_added"])
        status = entry.get("status")
        if status == "finished":
            normalized["shelf"] = "read"
        elif status == "in_progress":
            normalized["shelf"] = "reading"
        elif status == "abandoned":
            normalized["shelf"] = "stopped-reading"
    return normalized


def base_shelf(normalized):
    """Importer.get_shelf."""
    name = normalized.get("shelf")
    if not name:
        return None, False
    lowered = name.lower()
    matches = [shelf for shelf, names in SHELF_GUESSES.items() if lowered in names]
    return (matches[0] if matches else normalized.get("shelf") or None), False


def get_shelf(importer, normalized):
    """get_shelf of each importer: (shelf, whether it is the importer's to-read fallback)."""
    if importer in ("librarything", "openreads"):
        if normalized.get("date_finished"):
            return "read", False
        if normalized.get("date_started"):
            return "reading", False
        shelf, _ = base_shelf(normalized)
        return (shelf, False) if shelf else ("to-read", True)
    if importer == "calibre":
        shelf, _ = base_shelf(normalized)
        return (shelf, False) if shelf else ("to-read", True)
    return base_shelf(normalized)


def unquote(text):
    """import_job.unquote_string."""
    if not text:
        return None
    match = re.match(r'="([^"]*)"', text)
    return match.group(1) if match else text


def parse_date(text):
    """ImportItem._parse_datefield, as a calendar day in the value's own offset."""
    if not text:
        return None
    if dateparser:
        return dateparser.parse(text, default=datetime(1970, 1, 1)).date().isoformat()
    text = text.strip()
    for form in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y"):
        try:
            return datetime.strptime(text, form).date().isoformat()
        except ValueError:
            continue
    raise ValueError(f"date {text!r}: install python3-dateutil to read it as BookWyrm does")


def bookwyrm_item(importer, normalized):
    """What BookWyrm's ImportItem and handle_imported_book make of one normalized row."""
    stated = normalized.get("shelf") if importer == "openreads" else None
    shelf, fallback = get_shelf(importer, normalized)
    normalized["shelf"] = shelf
    rating = None
    if normalized.get("rating"):
        try:
            rating = float(normalized["rating"])
        except ValueError:
            rating = None
    added = parse_date(normalized.get("date_added"))
    started = parse_date(normalized.get("date_started"))
    finished = parse_date(normalized.get("date_finished"))
    guessed = False
    if (shelf == "reading" or (shelf == "read" and finished)) and added and not started:
        started, guessed = added, True
    reads = []
    if started and not finished:
        reads = [(started, None)]
    elif finished:
        reads = [(started if started and started < finished else None, finished)]
    isbns = [v for v in (unquote(normalized.get("isbn_13")), unquote(normalized.get("isbn_10"))) if v]
    return {
        "title": normalized.get("title"), "author": normalized.get("authors"), "isbns": isbns,
        "rating": rating or None, "shelf": shelf, "shelf_fallback": fallback, "added": added, "reads": reads,
        "start_guessed": guessed, "review": normalized.get("review_body"),
        "keys": [normalized.get(k) for k in ("openlibrary_key", "openlibrary_work_key") if normalized.get(k)],
        "shelf_name": normalized.get("shelf_name"), "stated_shelf": stated,
    }


def read_rows(path, delimiter):
    """The file's data rows as BookWyrm's DictReader gives them, each with its first line."""
    data = open(path, "rb").read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    reader = csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=delimiter)
    headers = reader.fieldnames
    rows, line = [], 1
    for entry in reader:
        rows.append((line + 1, entry))
        line = reader.line_num
    return headers, rows


# ---- Shelfline's library -----------------------------------------------------------------------


def gzip_lines(path):
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def shelfline_run(bin_dir, sample, config, workspace):
    """Imports `sample` into a fresh workspace; returns (ledger by line, library by id, parse report)."""
    shutil.rmtree(workspace, ignore_errors=True)
    env = dict(os.environ, SHELFLINE_BIN=bin_dir)
    result = subprocess.run(
        [f"{bin_dir}/shelfline", "run", "--csv", sample, "--config", config, "--workspace", workspace, "--quiet"],
        env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{sample}: shelfline run exited {result.returncode}: {result.stderr.strip()}")
    run = os.path.join(workspace, "runs", "latest")
    ledger = {entry["line"]: entry for entry in gzip_lines(os.path.join(run, "ledger.ndjson.gz"))}
    library = {book["id"]: book for book in gzip_lines(os.path.join(workspace, "library", "library.ndjson.gz"))}
    report = json.load(open(os.path.join(run, "parse-report.json")))
    return ledger, library, report


# ---- Comparison --------------------------------------------------------------------------------


def isbn_form(value):
    digits = re.sub(r"[\s-]", "", value or "").upper()
    if re.fullmatch(r"97[89]\d{10}", digits):
        return "isbn13", digits
    if re.fullmatch(r"\d{9}[\dX]", digits):
        return "isbn10", digits
    return None, None


def isbn10_of(isbn13):
    if not isbn13 or not isbn13.startswith("978"):
        return None
    core = isbn13[3:12]
    check = (11 - sum((10 - i) * int(d) for i, d in enumerate(core)) % 11) % 11
    return core + ("X" if check == 10 else str(check))


def uninverted(name):
    parts = name.split(", ")
    return f"{parts[1]} {parts[0]}" if len(parts) == 2 else name


def clean(text):
    return text.strip() if isinstance(text, str) and text.strip() else None


def shelf_state(bookwyrm_shelf):
    if not bookwyrm_shelf:
        return None
    state = {"to-read": "to-read", "reading": "currently-reading", "read": "read",
             "stopped-reading": "did-not-finish"}.get(bookwyrm_shelf)
    if state:
        return state
    return "did-not-finish" if bookwyrm_shelf.lower().replace(" ", "-") in DNF_NAMES else bookwyrm_shelf


# The BookWyrm field each compared field is read from (None in `mapped`: no column for it).
SOURCE_FIELDS = {"title": "title", "author": "authors", "rating": "rating", "shelf": "shelf",
                 "added": "date_added", "review": "review_body"}


def compare(item, book, importer, separator, mapped):
    """(disagreements, kept more) of one row: lists of (field, BookWyrm's, Shelfline's)."""
    wrong, more = [], []

    def check(field, bookwyrm, shelfline):
        if bookwyrm == shelfline:
            return
        unread = not mapped.get(SOURCE_FIELDS[field])
        (more if bookwyrm is None and unread else wrong).append((field, bookwyrm, shelfline))

    if importer == "openlibrary":
        keys = [v for k, v in sorted((book.get("identifiers") or {}).items()) if k.startswith("openlibrary")]
        if book.get("title") not in item["keys"]:
            wrong.append(("title", "one of the keys " + ", ".join(item["keys"]), book.get("title")))
        if sorted(item["keys"]) != sorted(keys):
            wrong.append(("keys", item["keys"], keys))
    else:
        title = clean(book.get("title"))
        if book.get("series"):
            number = f", #{book['seriesPosition']}" if book.get("seriesPosition") else ""
            with_series = f"{title} ({book['series']}{number})"
            title = with_series if clean(item["title"]) == with_series else title
        check("title", clean(item["title"]), title)
        names = [n for n in [book.get("author")] + (book.get("additionalAuthors") or []) if n]
        text = clean(item["author"])
        wanted = [n.strip() for n in text.split(separator)] if text and separator else ([text] if text else [])
        if importer == "librarything":
            wanted = [uninverted(n) for n in wanted]
        if wanted != names[: len(wanted)] or (not wanted and names):
            wrong.append(("author", text, names))

    forms = {}
    for value in item["isbns"]:
        form, digits = isbn_form(value)
        if form:
            forms.setdefault(form, digits)
    for form in ("isbn10", "isbn13"):
        ours, theirs = book.get(form), forms.get(form)
        if theirs == ours:
            continue
        other = forms.get("isbn13")
        derived = form == "isbn10" and other and isbn10_of(other) == ours
        derived = derived or (form == "isbn13" and forms.get("isbn10") and isbn10_of(ours) == forms.get("isbn10"))
        if theirs is None and ours and (derived or importer == "calibre"):
            more.append((form, None, ours))
        else:
            wrong.append((form, theirs, ours))

    check("rating", item["rating"], book.get("rating"))

    theirs = shelf_state(item["stated_shelf"] or item["shelf"])
    ours = book.get("shelf")
    custom = theirs not in (None, "to-read", "currently-reading", "read", "did-not-finish")
    ours_all = [ours] + (book.get("shelves") or [])
    if custom and (item["shelf"] in ours_all or item["shelf_name"] in ours_all):
        pass
    elif theirs != ours and not (item["shelf_fallback"] and ours is None):
        wrong.append(("shelf", item["shelf"], ours))

    check("added", item["added"], book.get("dateAdded"))

    reads = [(r.get("start"), r.get("end")) for r in book.get("reads") or []]
    for start, end in item["reads"]:
        if item["start_guessed"] and end is None:
            continue
        matches = [r for r in reads if r[1] == end and (item["start_guessed"] or r[0] == start)]
        if not matches:
            field = "finished" if not any(r[1] == end for r in reads) else "started"
            wrong.append((field, f"{start}..{end}" + (" (start guessed)" if item["start_guessed"] else ""),
                          [f"{s}..{e}" for s, e in reads]))
    extra = [r for r in reads if not any(r[1] == end for _, end in item["reads"])]
    if extra:
        more.append(("reads", [f"{s}..{e}" for s, e in item["reads"]], [f"{s}..{e}" for s, e in reads]))

    check("review", clean(item["review"]), clean(book.get("review")))
    return wrong, more


def main():
    samples, bin_dir, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "pipeline.json")
    write_config(config, work)
    total_wrong = total_lost = 0
    print(f"{'format':<14}{'rows':>6}{'kept':>6}{'skipped':>9}{'disagree':>10}  by field")
    details = []
    for name, importer, delimiter, separator in SAMPLES:
        path = os.path.join(samples, name)
        headers, rows = read_rows(path, delimiter)
        mappings = row_mappings(importer, headers)
        ledger, library, report = shelfline_run(bin_dir, path, config, os.path.join(work, "ws-" + name))
        kept = skipped = lost = 0
        by_field = {}
        for line, entry in rows:
            item = bookwyrm_item(importer, normalize(importer, entry, mappings))
            where = ledger.get(line)
            label = f"{name} line {line} ({clean(item['title']) or ' '.join(item['keys'])})"
            if where and where["outcome"] == "skipped":
                skipped += 1
                details.append(f"  skipped by the source: {label}: {where.get('reason')}")
                continue
            if not where or where["outcome"] not in ("added", "updated", "duplicateInFile"):
                lost += 1
                details.append(f"  NOT KEPT: {label}: {where}")
                continue
            kept += 1
            wrong, more = compare(item, library[where["bookId"]], importer, separator, mappings)
            for field, theirs, ours in wrong:
                by_field[field] = by_field.get(field, 0) + 1
                details.append(f"  DISAGREE {label}: {field}: BookWyrm {theirs!r}, Shelfline {ours!r}")
            for field, theirs, ours in more:
                details.append(f"  kept more {label}: {field}: BookWyrm {theirs!r}, Shelfline {ours!r}")
        count = sum(by_field.values())
        total_wrong += count
        total_lost += lost
        fields = ", ".join(f"{f} {n}" for f, n in sorted(by_field.items())) or "-"
        print(f"{name:<14}{len(rows):>6}{kept:>6}{skipped:>9}{count:>10}  {fields}")
        if report["rowsRead"] != len(rows):
            details.append(f"  ROW COUNT {name}: BookWyrm reads {len(rows)} rows, Shelfline {report['rowsRead']}")
            total_lost += 1
    print("\n".join(details))
    print(f"total: {total_wrong} disagreements, {total_lost} rows not kept")
    return 1 if total_wrong or total_lost else 0


def write_config(path, work):
    """examples/pipeline.json with an empty catalog as the only source: offline, and the library
    holds what the rows say (a catalog match would add its own ISBNs and metadata)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    config = json.load(open(os.path.join(root, "examples", "pipeline.json")))
    catalog = os.path.join(work, "catalog")
    os.makedirs(catalog, exist_ok=True)
    for name in ("editions.txt.gz", "works.txt.gz"):
        with gzip.open(os.path.join(catalog, name), "wb"):
            pass
    open(os.path.join(catalog, "authors.txt"), "w").close()
    config.pop("$schema", None)
    config.pop("beerQueue", None)
    for stage in config["stages"]:
        if stage["name"] == "lookup":
            stage["parameters"]["sources"] = ["catalog"]
            stage["parameters"]["catalog"] = [os.path.join(catalog, n)
                                              for n in ("editions.txt.gz", "works.txt.gz", "authors.txt")]
    json.dump(config, open(path, "w"), indent=2)


if __name__ == "__main__":
    sys.exit(main())
