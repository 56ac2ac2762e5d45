"""Sends exactly COUNT requests to 127.0.0.1:PORT over CONNECTIONS keep-alive connections (one
request in flight on each), checks that every answer is 200 (and, with --expect TEXT, that its
body contains TEXT), and prints "COUNT ok". An exact count, unlike wrk's duration, lets the
callgrind profile divide instructions by requests.

The requests are the unsigned getBadgeCatalog POST, or those of a JSON array of raw requests
(bench/http/signed-pool --json), taken in turn.

usage: drive.py PORT COUNT CONNECTIONS [--requests FILE.json] [--expect TEXT]
"""
import json
import selectors
import socket
import sys

CATALOG = (b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: 50\r\n\r\n" + b'{"version":1,"request":{"type":"getBadgeCatalog"}}')


def main():
    args = sys.argv[1:]
    requests = [CATALOG]
    expect = None
    if "--requests" in args:
        i = args.index("--requests")
        with open(args[i + 1]) as f:
            requests = [r.encode("ascii") for r in json.load(f)]
        del args[i:i + 2]
    if "--expect" in args:
        i = args.index("--expect")
        expect = args[i + 1].encode()
        del args[i:i + 2]
    port, count, connections = int(args[0]), int(args[1]), int(args[2])

    selector = selectors.DefaultSelector()
    sent = 0
    done = 0
    state = {}

    def send_next(sock):
        nonlocal sent
        sock.sendall(requests[sent % len(requests)])
        sent += 1
        state[sock] = b""

    for _ in range(min(connections, count)):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        selector.register(sock, selectors.EVENT_READ)
        send_next(sock)

    while done < count:
        for key, _ in selector.select(timeout=30) or [(None, None)]:
            if key is None:
                sys.exit(f"no answer within 30 s after {done} responses")
            sock = key.fileobj
            chunk = sock.recv(65536)
            if not chunk:
                sys.exit(f"connection closed after {done} responses")
            data = state[sock] + chunk
            state[sock] = data
            head, sep, body = data.partition(b"\r\n\r\n")
            if not sep:
                continue
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if len(body) < length:
                continue
            status = head.split(b" ", 2)[1]
            if status != b"200" or (expect is not None and expect not in body):
                sys.exit(f"unexpected answer: {head.decode(errors='replace')}\n\n{body[:400].decode(errors='replace')}")
            done += 1
            if sent < count:
                send_next(sock)
            else:
                selector.unregister(sock)
                sock.close()
    print(f"{done} ok")


if __name__ == "__main__":
    main()
