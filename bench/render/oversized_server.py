"""A loopback server answering every GET with 300 MB: /cl with Content-Length, anything else
streamed without one (read until close). For the beer-queue page-limit figures (issue 15.5).
Usage: oversized_server.py PORT_FILE  (writes the port it listens on to PORT_FILE)."""
import http.server
import sys

SIZE = 300 * 1000 * 1000
CHUNK = b"<p>filler filler filler</p>\n" * 4096


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if self.path.startswith("/cl"):
            self.send_header("Content-Length", str(SIZE))
        self.end_headers()
        sent = 0
        try:
            while sent < SIZE:
                n = min(len(CHUNK), SIZE - sent)
                self.wfile.write(CHUNK[:n])
                sent += n
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
