"""How every fake in Tests/Peers serves: on a free 127.0.0.1 port it prints as `port N` (the
Swift side, TestSupport's PeerServer, reads that line), until its standard input closes (the
test let go of it) or `lifetime` seconds pass, so no fake outlives a crashed test."""
import os
import sys
import threading
from http.server import ThreadingHTTPServer


def serve(handler, lifetime):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"port {server.server_address[1]}", flush=True)

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Timer(lifetime, lambda: os._exit(0)).start()
    server.serve_forever()
