#!/usr/bin/env python3
"""Scores bench/sources' lookup against the services' truth.

score.py MATCH_DIR ENRICHED.ndjson.gz REPORT.json SECONDS STATS_OL.json STATS_GB.json

A row's match is right when the source that matched it names the row's own book: Open Library by
the book's true work, Google Books by the book's own volume. Prints wrong matches per source
(target 0), the share of books either source has that were accepted (target >= 95 %), the share
of books only Google Books has that were accepted (target >= 90 %), and requests, 429s and rows per
second per source.
"""
import gzip
import json
import sys

out, enriched, report, seconds, stats_ol, stats_gb = sys.argv[1:7]
seconds = float(seconds)
labels = json.load(open(f"{out}/labels.json", encoding="utf-8"))["rows"]
truth = json.load(open(f"{out}/truth.json", encoding="utf-8"))
# In input order: the rows come from several exports, so a line number names no row alone.
with gzip.open(enriched, "rt", encoding="utf-8") as f:
    records = [json.loads(line) for line in f if line.strip()]

ACCEPTED = {"matchedByIsbn", "matchedBySearch"}
tally = {k: 0 for k in ("either", "eitherAccepted", "googleOnly", "googleOnlyAccepted", "neither", "neitherAccepted")}
wrong, by_source, shown = {}, {}, []
scored = 0
for record, label in zip(records, labels):
    scored += 1
    book = truth[label["book"]]
    match = record.get("match") or {}
    accepted = match.get("status") in ACCEPTED
    source = match.get("source") or (record.get("metadata") or {}).get("source")
    right = False
    if accepted:
        by_source[source] = by_source.get(source, 0) + 1
        own_id = match.get("sourceId") or match.get("editionKey")
        right = (match.get("workKey") == book["work"]) if source == "openlibrary" else (own_id == book["volume"])
        if not right:
            wrong[source] = wrong.get(source, 0) + 1
            if len(shown) < 10:
                shown.append(f"  wrong [{source}] {record.get('title')!r} by {record.get('author')!r} → "
                             f"{(record.get('metadata') or {}).get('title')!r} {own_id} {match.get('workKey')}")
    kind = "either" if book["present"] or book["volume"] else "neither"
    tally[kind] += 1
    tally[kind + "Accepted"] += accepted and right
    if not book["present"] and book["volume"]:
        tally["googleOnly"] += 1
        tally["googleOnlyAccepted"] += accepted and right


def share(part, whole):
    return f"{part / whole:.1%}" if whole else "-"


stats = {"openlibrary": json.load(open(stats_ol)), "googlebooks": json.load(open(stats_gb))}
print(f"rows {scored} in {seconds:.1f} s ({scored / seconds:.1f} rows/s)")
print(f"wrong matches: {sum(wrong.values())} ({', '.join(f'{k} {v}' for k, v in sorted(wrong.items())) or 'none'}); target 0")
print(f"books either source has: {tally['either']} rows, {share(tally['eitherAccepted'], tally['either'])} accepted "
      f"(target >= 95 %)")
print(f"books only Google Books has: {tally['googleOnly']} rows, "
      f"{share(tally['googleOnlyAccepted'], tally['googleOnly'])} accepted (target >= 90 %)")
print(f"books neither has: {tally['neither']} rows, {tally['neitherAccepted']} accepted (they can only be wrong)")
for name in ("openlibrary", "googlebooks"):
    s = stats[name]
    print(f"{name:<12} matched {by_source.get(name, 0):5d} rows ({by_source.get(name, 0) / seconds:.2f} rows/s), "
          f"{s['requests']} requests ({s['requests'] / seconds:.2f}/s), {s['rateLimited']} answered 429")
for text in shown:
    print(text)
missed = sum(wrong.values()) > 0 or (tally["either"] and tally["eitherAccepted"] / tally["either"] < 0.95) \
    or (tally["googleOnly"] and tally["googleOnlyAccepted"] / tally["googleOnly"] < 0.90)
if "--check" in sys.argv and missed:
    sys.exit(1)
