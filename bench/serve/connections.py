#!/usr/bin/env python3
"""Many keep-alive connections at once against a running `shelfline-push serve` (issue 27).

usage: connections.py PORT SECRET [CONNECTIONS]
Opens CONNECTIONS (default 1000) connections and keeps them all open. Round 1: GET /healthz on
every one, all written before any answer is read. Round 2, on the same connections: a PUT of a new
token on every tenth, GET /healthz on the rest. Prints one JSON line:
  {"connections": N, "statuses": {"200": ..., "201": ...}, "errors": [...]}
A status of "closed" counts a connection that ended without an answer. Raises its own soft
descriptor limit when it must; exits 69 naming the hard limit when it cannot.
ServeSlowClientTests runs it against the server; start serve with a rate limit that lets it through.
"""
import http.client, json, resource, socket, sys

port, secret = int(sys.argv[1]), sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
needed = count + 64
if soft < needed:
    if hard != resource.RLIM_INFINITY and hard < needed:
        print(f"connections.py: {count} connections need {needed} descriptors; the hard limit is {hard} (ulimit -Hn)", file=sys.stderr)
        sys.exit(69)
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))

statuses, errors = {}, []
connections = [socket.create_connection(("127.0.0.1", port), timeout=120) for _ in range(count)]
body = json.dumps({"activity": "beer-queue", "kind": "update"}).encode()

def request(index, round):
    if round == 2 and index % 10 == 0:
        token = "%064x" % (index + 1)
        head = (f"PUT /v1/tokens/{token} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        return head.encode() + body
    return b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

for round in (1, 2):
    for index, connection in enumerate(connections):
        connection.sendall(request(index, round))
    for connection in connections:
        try:
            response = http.client.HTTPResponse(connection)
            response.begin()
            response.read()
            key = str(response.status)
        except (http.client.HTTPException, OSError) as error:
            key = "closed"
            if len(errors) < 5: errors.append(repr(error))
        statuses[key] = statuses.get(key, 0) + 1

for connection in connections: connection.close()
print(json.dumps({"connections": count, "statuses": statuses, "errors": errors}))
