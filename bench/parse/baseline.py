#!/usr/bin/env python3
"""Reference baseline for the parse benchmark: the straightforward way to turn an export into
gzip NDJSON with Python's standard library (csv + json + gzip at the same level as shelfline-parse).

Usage: baseline.py IN.csv OUT.ndjson.gz [LEVEL]
"""
import csv
import gzip
import json
import sys


def main():
    source, target = sys.argv[1], sys.argv[2]
    level = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rows = 0
    with open(source, newline="", encoding="utf-8-sig", errors="replace") as handle, \
            gzip.open(target, "wt", compresslevel=level, encoding="utf-8") as out:
        for row in csv.DictReader(handle):
            out.write(json.dumps(row, ensure_ascii=False))
            out.write("\n")
            rows += 1
    print(rows, file=sys.stderr)


if __name__ == "__main__":
    main()
