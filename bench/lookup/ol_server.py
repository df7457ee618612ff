#!/usr/bin/env python3
"""Open Library stand-in for the lookup benchmark (bench only; tests use the Swift loopback server).

Serves /api/books (every ISBN is found) and /search.json in Open Library's documented shapes,
answers after LATENCY seconds, and like openlibrary.org answers 429 (no Retry-After) when more
than RATE requests arrived in the last second. Counts requests and 429s; GET /stats returns them.
Usage: ol_server.py PORT_FILE [--latency 0.1] [--rate 3]
"""
import argparse
import collections
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("port_file")
parser.add_argument("--latency", type=float, default=0.1)
parser.add_argument("--rate", type=float, default=3)
args = parser.parse_args()

lock = threading.Lock()
arrivals = collections.deque()
stats = {"requests": 0, "rateLimited": 0, "maxPerSecond": 0, "first": None, "last": None}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/stats":
            with lock:
                return self.send(200, stats)
        now = time.monotonic()
        with lock:
            while arrivals and now - arrivals[0] >= 1.0:
                arrivals.popleft()
            arrivals.append(now)
            stats["requests"] += 1
            stats["maxPerSecond"] = max(stats["maxPerSecond"], len(arrivals))
            stats["first"] = stats["first"] or time.time()
            stats["last"] = time.time()
            limited = len(arrivals) > args.rate
            if limited:
                stats["rateLimited"] += 1
        time.sleep(args.latency)
        if limited:
            return self.send(429, {"error": "rate limited"})
        if url.path == "/api/books":
            keys = query.get("bibkeys", [""])[0].split(",")
            body = {}
            for key in keys:
                isbn = key.replace("ISBN:", "")
                body[key] = {
                    "url": f"https://openlibrary.org/books/OL{isbn[-7:]}M", "key": f"/books/OL{isbn[-7:]}M",
                    "title": f"Bench Book {isbn}", "authors": [{"name": "Bench Author", "url": "https://openlibrary.org/authors/OL1A"}],
                    "identifiers": {"isbn_13": [isbn]}, "publishers": [{"name": "Bench Press"}],
                    "publish_date": "2001", "number_of_pages": 300,
                    "cover": {"medium": "https://covers.openlibrary.org/b/id/1-M.jpg"},
                }
            return self.send(200, body)
        if url.path == "/search.json":
            return self.send(200, {"numFound": 0, "start": 0, "docs": []})
        return self.send(404, {"error": "notfound"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(args.port_file, "w") as out:
    out.write(str(server.server_address[1]))
server.serve_forever()
