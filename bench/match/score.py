#!/usr/bin/env python3
"""Scores a lookup run against the fixtures' labels.

score.py LABELS.json ENRICHED.ndjson.gz

A row is *present* when its true book is in the catalog. An accept (matchedByIsbn or
matchedBySearch) is right when its work is the true book's work, else wrong. Prints the totals
against the issue's targets, then one line per distractor kind (rows whose book has a distractor
of that kind, and wrong accepts of a distractor of that kind), then the share of all rows sent to
review (issue 21: target <= 5 %) and the share of books absent from the catalog with near-miss
siblings in it (the set's premise: >= 20 %).
"""
import gzip
import json
import sys
from collections import Counter, defaultdict

labels = json.load(open(sys.argv[1]))
with gzip.open(sys.argv[2], "rt", encoding="utf-8") as f:
    records = [json.loads(line) for line in f]
rows = labels["rows"]
assert len(rows) == len(records), f"{len(rows)} labels, {len(records)} records"
work_kind = labels["works"]

totals = Counter()
per_kind = defaultdict(Counter)
for label, record in zip(rows, records):
    match = record.get("match") or {}
    status = match.get("status", "missing")
    accepted = status in ("matchedByIsbn", "matchedBySearch")
    right = accepted and label["present"] and match.get("workKey") == label["work"]
    wrong = accepted and not right
    side = "present" if label["present"] else "absent"
    outcome = "right" if right else "wrong" if wrong else status
    totals[side] += 1
    totals[f"{side}:{outcome}"] += 1
    wrong_kind = work_kind.get(match.get("workKey") or "", "unknown") if wrong else None
    if wrong:
        totals[f"wrongKind:{wrong_kind}"] += 1
    for kind in label["kinds"] or ["none"]:
        per_kind[kind]["rows"] += 1
        per_kind[kind][f"{side}"] += 1
        per_kind[kind][f"{side}:{outcome}"] += 1
        if wrong and wrong_kind == kind:
            per_kind[kind]["wrongToKind"] += 1

rows_total = len(rows)
present = totals["present"]
wrong = totals["present:wrong"] + totals["absent:wrong"]
accepts = totals["present:right"] + wrong


def share(part, whole):
    return f"{part / whole:6.1%}" if whole else "    - "


print(f"rows {rows_total}: present {present} ({share(present, rows_total).strip()}), absent {totals['absent']}")
print(f"wrong auto-accepts      {wrong:5d}  ({share(wrong, accepts).strip()} of accepts; precision "
      f"{share(accepts - wrong, accepts).strip()})   target 0")
print(f"present auto-accepted   {totals['present:right']:5d}  {share(totals['present:right'], present)}   target >= 95%")
print(f"present in review       {totals['present:needsReview']:5d}  {share(totals['present:needsReview'], present)}   target < 5%")
print(f"present not enriched    {totals['present:notEnriched']:5d}  {share(totals['present:notEnriched'], present)}")
print(f"absent in review        {totals['absent:needsReview']:5d}  {share(totals['absent:needsReview'], totals['absent'])}")
print(f"absent not enriched     {totals['absent:notEnriched']:5d}  {share(totals['absent:notEnriched'], totals['absent'])}")
print()
print(f"{'distractor kind':<18} {'rows':>5} {'wrong':>5} {'present':>7} {'accepted':>8} {'review':>7} {'notEnr':>7} "
      f"{'absent':>6} {'review':>7} {'notEnr':>7}")
for kind in sorted(per_kind):
    c = per_kind[kind]
    print(f"{kind:<18} {c['rows']:5d} {c['wrongToKind']:5d} {c['present']:7d} {share(c['present:right'], c['present']):>8} "
          f"{share(c['present:needsReview'], c['present']):>7} {share(c['present:notEnriched'], c['present']):>7} "
          f"{c['absent']:6d} {share(c['absent:needsReview'], c['absent']):>7} {share(c['absent:notEnriched'], c['absent']):>7}")
other = {k: v for k, v in totals.items() if k.startswith("wrongKind:")}
if other:
    print("wrong accepts by the accepted work's kind: " + ", ".join(f"{k[10:]} {v}" for k, v in sorted(other.items())))
# Issue 21: the review queue over all rows, and how much of the set is absent with near misses.
reviewed = totals["present:needsReview"] + totals["absent:needsReview"]
books = {}
for label in rows:
    books.setdefault(label["book"], label)
absent_books = [b for b in books.values() if not b["present"]]
with_siblings = sum(1 for b in absent_books if b.get("siblings", len(b["kinds"])))
print()
print(f"rows in review          {reviewed:5d}  {share(reviewed, rows_total)}   target <= 5%")
print(f"books absent            {len(absent_books):5d}  {share(len(absent_books), len(books))}   of {len(books)} books "
      f"({share(totals['absent'], rows_total).strip()} of rows); {with_siblings} with near-miss siblings "
      f"({share(with_siblings, len(books)).strip()} of books)   target >= 20%")
