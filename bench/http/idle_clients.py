"""Opens N keep-alive connections to 127.0.0.1:PORT, makes one request on each (the same POST
the benchmark sends), leaves them open and idle, prints "ready N" and waits for stdin to close.

usage: idle_clients.py PORT COUNT
"""
import socket
import sys

REQUEST = (b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: 50\r\n\r\n" + b'{"version":1,"request":{"type":"getBadgeCatalog"}}')


def read_response(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the response head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the end of the body")
        rest += chunk
    return head.split(b" ", 2)[1]


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    assert len(REQUEST.split(b"\r\n\r\n", 1)[1]) == 50
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(REQUEST)
        status = read_response(sock)
        if status != b"200":
            raise SystemExit(f"unexpected status {status!r}")
        sockets.append(sock)
    print(f"ready {len(sockets)}", flush=True)
    sys.stdin.read()
    for sock in sockets:
        sock.close()


if __name__ == "__main__":
    main()
