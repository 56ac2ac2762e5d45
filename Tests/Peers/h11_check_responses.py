"""Parses HTTP/1.1 responses captured from our server with h11 in the CLIENT role
(an independent, strict response parser) and reports what it saw.

stdin:  JSON list of {"method": "GET", "raw": "<base64 of the response bytes>"}
stdout: JSON list of {"statuses": [100, 200], "body": <octets>, "headers": [[name, value], ...]}
Exits non-zero, naming the case, if h11 rejects a response or does not see it complete.
"""
import base64
import json
import sys

import h11


def check(case):
    raw = base64.b64decode(case["raw"])
    conn = h11.Connection(our_role=h11.CLIENT)
    headers = [("Host", "t")]
    if case["method"] in ("POST", "PUT"):
        headers.append(("Content-Length", "0"))
    # h11 only speaks HTTP/1.1 as a client; the 1.0 cases are still parsed with its strict rules.
    conn.send(h11.Request(method=case["method"], target="/", headers=headers))
    conn.send(h11.EndOfMessage())
    conn.receive_data(raw)
    statuses, body, seen_headers = [], 0, []
    while True:
        event = conn.next_event()
        if isinstance(event, h11.InformationalResponse):
            statuses.append(event.status_code)
        elif isinstance(event, h11.Response):
            statuses.append(event.status_code)
            seen_headers = [[n.decode("latin-1"), v.decode("latin-1")] for n, v in event.headers]
        elif isinstance(event, h11.Data):
            body += len(event.data)
        elif isinstance(event, h11.EndOfMessage):
            break
        elif event is h11.NEED_DATA:
            raise ValueError("response incomplete")
        else:
            raise ValueError(f"unexpected event {event!r}")
    if conn.next_event() is not h11.NEED_DATA and conn.their_state is not h11.MUST_CLOSE:
        raise ValueError("bytes after the response")
    return {"statuses": statuses, "body": body, "headers": seen_headers}


def main():
    cases = json.load(sys.stdin)
    results = []
    for index, case in enumerate(cases):
        try:
            results.append(check(case))
        except Exception as error:  # noqa: BLE001 - report which case failed
            print(f"case {index} ({case['method']}): {error!r}", file=sys.stderr)
            sys.exit(1)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
