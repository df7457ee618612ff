#!/usr/bin/env python3
"""A stand-in Open Library and Google Books on loopback, for bench/sources.

fake_services.py MATCH_DIR PORTS_FILE [--ol-rate N] [--gb-rate N]

Open Library (the catalog in MATCH_DIR's dumps): `GET /api/books?bibkeys=ISBN:…&jscmd=details`
and `GET /search.json?title=&author=&limit=`, in the documented shapes. Google Books
(MATCH_DIR/googlebooks.json): `GET /books/v1/volumes?q=isbn:X` and `q=intitle:… inauthor:…`
(`maxResults` ≤ 40; no `items` when nothing matches). Searches match the words of the asked
title's main part in any title that has them and ignore the author, as loose as the real services:
near misses come back as candidates. Each service answers 429 beyond its rate × 60 requests in
any minute (default 3 and 1 requests/s: Open Library's documented rate and the shipped Google Books pacing),
so a client that does not pace itself is seen. `GET /stats` on either: requests, 429s.
Writes "OL_PORT GB_PORT" to PORTS_FILE and serves until killed.
"""
import gzip
import json
import re
import sys
import threading
import time
import unicodedata
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

args = sys.argv[1:]
out, ports_file = args[0], args[1]


def option(name, default):
    return float(args[args.index(name) + 1]) if name in args else default


def dump(name):
    with gzip.open(f"{out}/{name}", "rt", encoding="utf-8") as f:
        return [json.loads(line.split("\t", 4)[4]) for line in f if line.strip()]


def words(text):
    folded = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode().lower()
    return re.findall(r"[a-z0-9]+", folded)


authors = {a["key"]: a["name"] for a in dump("authors.txt.gz")}
works = {w["key"]: w for w in dump("works.txt.gz")}
by_isbn, editions_of = {}, {}
for edition in dump("editions.txt.gz"):
    for isbn in edition.get("isbn_13", []):
        by_isbn[isbn] = edition
    for work in edition.get("works", []):
        editions_of.setdefault(work["key"], []).append(edition)
volumes = json.load(open(f"{out}/googlebooks.json", encoding="utf-8"))["volumes"]
volume_by_isbn = {v["isbn13"]: v for v in volumes if v["isbn13"]}


def title_words_match(asked, title):
    """Every word of the asked title's main part (before `:` or ` - `) is in the title: a search
    as loose as the real ones, which rank rather than filter."""
    main = re.split(r":| - ", asked, maxsplit=1)[0]
    asked, have = set(words(main)), set(words(title))
    return bool(asked) and asked <= have


def ol_details(bibkey, edition):
    names = [{"key": a["key"], "name": authors.get(a["key"], "")} for a in edition.get("authors", [])]
    details = {"key": edition["key"], "title": edition["title"], "works": edition.get("works", []),
               "authors": names, "isbn_13": edition.get("isbn_13", []), "publishers": edition.get("publishers", []),
               "publish_date": edition.get("publish_date", "2001"), "number_of_pages": 320, "covers": [77]}
    if edition.get("subtitle"):
        details["subtitle"] = edition["subtitle"]
    return {"bib_key": bibkey, "info_url": "https://openlibrary.org" + edition["key"], "details": details}


def ol_search(query):
    asked, limit = query.get("title", [""])[0], int(query.get("limit", ["20"])[0])
    docs = []
    for key, work in works.items():
        editions = editions_of.get(key, [])
        full = " ".join([work["title"]] + [e.get("subtitle", "") for e in editions])
        if not title_words_match(asked, full):
            continue
        doc = {"key": key, "title": work["title"],
               "author_name": [authors.get(a["author"]["key"], "") for a in work.get("authors", [])],
               "first_publish_year": 2001, "cover_i": 77,
               "isbn": [i for e in editions for i in e.get("isbn_13", [])]}
        subtitles = [e["subtitle"] for e in editions if e.get("subtitle")]
        if subtitles:
            doc["subtitle"] = subtitles[0]
        if editions:
            doc["cover_edition_key"] = editions[0]["key"].split("/")[-1]
        docs.append(doc)
    return {"numFound": len(docs), "start": 0, "docs": docs[:limit]}


def gb_item(volume):
    info = {"title": volume["title"], "authors": volume["authors"], "publisher": "Verlag", "publishedDate": "2004-03-01",
            "pageCount": 320, "printType": "BOOK", "language": "de", "categories": ["Fiction"],
            "industryIdentifiers": [{"type": "ISBN_13", "identifier": volume["isbn13"]}] if volume["isbn13"] else [],
            "imageLinks": {"thumbnail": f"http://books.google.com/books/content?id={volume['id']}&zoom=1"}}
    if volume.get("subtitle"):
        info["subtitle"] = volume["subtitle"]
    return {"kind": "books#volume", "id": volume["id"], "volumeInfo": info}


def gb_volumes(query):
    q, limit = query.get("q", [""])[0], min(40, int(query.get("maxResults", ["10"])[0]))
    if q.startswith("isbn:"):
        found = [volume_by_isbn[q[5:]]] if q[5:] in volume_by_isbn else []
    else:
        asked = re.split(r"\s+inauthor:", q.replace("intitle:", "", 1))[0]
        found = [v for v in volumes if title_words_match(asked, v["title"] + " " + (v.get("subtitle") or ""))]
    answer = {"kind": "books#volumes", "totalItems": len(found)}
    if found:
        answer["items"] = [gb_item(v) for v in found[:limit]]
    return answer


class Service:
    def __init__(self, name, rate):
        self.name, self.rate, self.lock = name, rate, threading.Lock()
        self.arrivals, self.stats = [], {"requests": 0, "rateLimited": 0}

    def admit(self):
        """Both services count their quota per minute (Open Library: about 180 requests a minute)."""
        now = time.monotonic()
        with self.lock:
            self.stats["requests"] += 1
            while self.arrivals and now - self.arrivals[0] >= 60.0:
                self.arrivals.pop(0)
            self.arrivals.append(now)
            limited = len(self.arrivals) > self.rate * 60
            self.stats["rateLimited"] += limited
            return not limited


def handler_for(service):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body):
            data = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urlparse(self.path)
            query = parse_qs(url.query)
            if url.path == "/stats":
                return self.send(200, service.stats)
            if not service.admit():
                return self.send(429, {"error": "rate limited"})
            if service.name == "openlibrary" and url.path == "/api/books":
                keys = [k for k in query.get("bibkeys", [""])[0].split(",") if k]
                found = {k: ol_details(k, by_isbn[k[5:]]) for k in keys if k[5:] in by_isbn}
                return self.send(200, found)
            if service.name == "openlibrary" and url.path == "/search.json":
                return self.send(200, ol_search(query))
            if service.name == "googlebooks" and url.path == "/books/v1/volumes":
                return self.send(200, gb_volumes(query))
            return self.send(404, {"error": "notfound"})

    return Handler


servers = [ThreadingHTTPServer(("127.0.0.1", 0), handler_for(Service("openlibrary", option("--ol-rate", 3)))),
           ThreadingHTTPServer(("127.0.0.1", 0), handler_for(Service("googlebooks", option("--gb-rate", 1))))]
for server in servers:
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
with open(ports_file + ".tmp", "w") as f:
    f.write(" ".join(str(s.server_address[1]) for s in servers) + "\n")
__import__("os").replace(ports_file + ".tmp", ports_file)
threading.Event().wait()
