#!/usr/bin/env python3
"""PUT /v1/tokens load against a running `shelfline-push serve` (issue 27).

usage: put-load.py PORT SECRET [REQUESTS] [CLIENTS] [FIRST]
Each client thread holds one keep-alive connection and PUTs distinct tokens; prints requests/s and
latency percentiles. Tokens are numbered from FIRST + 1 (default 0), so a second run adds new ones. Start serve with a rate limit that lets it through, e.g.
  shelfline-push serve --listen 127.0.0.1:18787 --rate-burst 100000 --rate-per-second 100000
"""
import http.client, json, sys, threading, time

port, secret = int(sys.argv[1]), sys.argv[2]
total = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
clients = int(sys.argv[4]) if len(sys.argv) > 4 else 4
first = int(sys.argv[5]) if len(sys.argv) > 5 else 0
latencies, statuses, lock = [], {}, threading.Lock()
body = json.dumps({"activity": "beer-queue", "kind": "update"})

def run(index):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for n in range(index, total, clients):
        token = "%064x" % (first + n + 1)
        start = time.perf_counter()
        connection.request("PUT", "/v1/tokens/" + token, body, {"Authorization": "Bearer " + secret})
        response = connection.getresponse()
        response.read()
        with lock:
            latencies.append(time.perf_counter() - start)
            statuses[response.status] = statuses.get(response.status, 0) + 1

start = time.perf_counter()
threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
for thread in threads: thread.start()
for thread in threads: thread.join()
elapsed = time.perf_counter() - start
latencies.sort()
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
print(f"{total} PUTs (tokens {first + 1}..{first + total}), {clients} clients: {total / elapsed:.0f} requests/s, p50 {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms, statuses {statuses}")
