#!/usr/bin/env python3
"""Differential fuzzing peer (Tests/Fuzz/README.md, Differential): generates inputs by mutating
the fuzz corpora (Tests/Fuzz/Corpus) with the targets' dictionaries and structure-aware
generators, judges each with an independent implementation, and prints one line per input:

    <input as hex> TAB <verdict as JSON>

    differential_peer.py KIND SEED COUNT
    differential_peer.py KIND judge      (hex inputs on stdin, one a line) -> one verdict a line

KIND and its judge (PyPI packages pinned in requirements.txt):
  json    Python's json (the value, in a canonical text both sides print, see canon_json)
  sf      http-sf: Dictionary, List and Item parsed and serialized again
  base64  Python's base64: strict (validate=True) and lenient decoding, url and standard alphabets
  jtd     jtd against the `request` definition of schema/badges-rpc.schema.json
  http    h11 as a server: the first request's head, its body and whether it ended

The same SEED and COUNT give the same inputs (random.Random; the corpora are read in name order).
Facts a verdict records beside the answer ("notes") let the Swift side tell a documented
difference from a finding; the peer never adapts its answer to ours.
"""
import base64
import binascii
import json
import os
import random
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "Tests", "Fuzz", "Corpus")
DICTIONARIES = os.path.join(ROOT, "Tests", "Fuzz", "Dictionaries")


# --- inputs ------------------------------------------------------------------------------------
def corpus(target, strip=0):
    directory = os.path.join(CORPUS, target)
    out = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), "rb") as f:
            out.append(f.read()[strip:])
    return out


def dictionary(target):
    """The tokens of a libFuzzer dictionary (`"..."` lines with \\xNN, \\\\ and \\" escapes)."""
    tokens = []
    with open(os.path.join(DICTIONARIES, target + ".dict"), "rb") as f:
        for line in f.read().splitlines():
            line = line.strip()
            if not line.startswith(b'"') or not line.endswith(b'"'):
                continue
            body, out, i = line[1:-1], bytearray(), 0
            while i < len(body):
                if body[i:i + 2] == b"\\x":
                    out.append(int(body[i + 2:i + 4], 16))
                    i += 4
                elif body[i:i + 1] == b"\\":
                    out.append(body[i + 1])
                    i += 2
                else:
                    out.append(body[i])
                    i += 1
            tokens.append(bytes(out))
    return tokens


INTERESTING = [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x27, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x39, 0x3A, 0x3B,
               0x3D, 0x40, 0x5B, 0x5C, 0x5D, 0x7B, 0x7D, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xEF, 0xF0, 0xFF]


def mutate(rng, data, tokens):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        at = rng.randint(0, len(data))
        if op == 0 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and data:
            data[min(at, len(data) - 1)] = rng.choice(INTERESTING)
        elif op == 2:
            data[at:at] = rng.choice(tokens)
        elif op == 3 and data:
            end = min(len(data), at + rng.randint(1, 8))
            del data[at:end]
        elif op == 4 and data:
            start = rng.randrange(len(data))
            data[at:at] = data[start:start + rng.randint(1, 16)]
        elif op == 5:
            data[at:at] = bytes([rng.choice(INTERESTING)])
        elif op == 6 and data:
            del data[at:]
        elif op == 7 and data:
            token = rng.choice(tokens)
            data[at:at + len(token)] = token
    return bytes(data)


def inputs(rng, seeds, tokens, generate, count, generated=0.3, mutate_generated=True):
    """Seeds as they are (5%), mutated (byte-level, with dictionary tokens) or spliced, and
    `generated` of the time from the structure-aware generator (half of those mutated too,
    unless `mutate_generated` is false)."""
    mutated = (1 - generated - 0.05) * 0.75
    for _ in range(count):
        r = rng.random()
        if r < 0.05 or not seeds:
            data = rng.choice(seeds) if seeds else b""
        elif r < 0.05 + mutated:
            data = mutate(rng, rng.choice(seeds), tokens)
        elif r < 1 - generated:
            a, b = rng.choice(seeds), rng.choice(seeds)
            data = a[:rng.randint(0, len(a))] + b[rng.randint(0, len(b)):]
        elif r < 1 - generated / 2 or not mutate_generated:
            data = generate(rng)
        else:
            data = mutate(rng, generate(rng), tokens)
        yield data


# --- json --------------------------------------------------------------------------------------
class Number:
    def __init__(self, literal):
        self.literal = literal


class Constant:
    pass


def integral(literal):
    """Whether a JSON number literal is mathematically an integer, from its digits."""
    text = literal.lstrip("-")
    mantissa, _, exponent = text.replace("E", "e").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return True
    exponent = int(exponent or "0") - len(fraction)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return exponent >= 0


def canon_json(value, notes, depth=0):
    """N T F, D<float64 bits hex><i|f>, S<UTF-8 hex>; [..] {key value..}: the text the Swift side prints too."""
    if depth + 1 > 64 and isinstance(value, list):  # arrays and objects; the top level is depth 1
        notes.add("depth>64")
    if value is None:
        return "N"
    if value is True:
        return "T"
    if value is False:
        return "F"
    if isinstance(value, Constant):
        notes.add("nonfinite-constant")
        return "C"
    if isinstance(value, Number):
        f = float(value.literal)
        if f in (float("inf"), float("-inf")):
            notes.add("out-of-range")
        if f == 0:
            f = 0.0
        return "D" + struct.pack(">d", f).hex() + ("i" if integral(value.literal) else "f")
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            notes.add("lone-surrogate")
        return "S" + value.encode("utf-8", "surrogatepass").hex() + ";"
    if isinstance(value, list) and value and isinstance(value[0], tuple) and getattr(value, "is_object", False):
        pass
    if isinstance(value, ObjectPairs):
        keys = [k for k, _ in value]
        if len(set(keys)) != len(keys):
            notes.add("duplicate")
        return "{" + "".join(canon_json(k, notes, depth + 1) + canon_json(v, notes, depth + 1) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + "".join(canon_json(v, notes, depth + 1) for v in value) + "]"
    raise TypeError(type(value))


class ObjectPairs(list):
    pass


def judge_json(data):
    notes = set()
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_float=Number, parse_int=Number, parse_constant=lambda _: Constant(),
                           object_pairs_hook=ObjectPairs)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return {"ok": False, "why": type(e).__name__}
    return {"ok": True, "canon": canon_json(value, notes), "notes": sorted(notes)}


def generate_json(rng, depth=0):
    def value(d):
        r = rng.randrange(9 if d < 4 else 6)
        if r == 0:
            return "null"
        if r == 1:
            return rng.choice(["true", "false"])
        if r == 2:
            return rng.choice(["0", "-0", "1", "-1", "12345678901234567890", "1.5", "1e3", "1E-3", "0.1e+1",
                               "9007199254740993", "1e308", "1.7976931348623157e308", "4.9e-324", "1e-400", "1e400",
                               "1.0000000000000000001", str(rng.randint(-10**6, 10**6)), repr(rng.uniform(-1e6, 1e6))])
        if r in (3, 4, 5):
            chars = rng.choice(["abc", "", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\u0000", "\u00e9\U0001F600", "\\n\\t\\\"\\\\\\/",
                                "x" * rng.randint(0, 40)])
            return '"' + chars + '"'
        if r in (6, 7):
            return "[" + ",".join(value(d + 1) for _ in range(rng.randint(0, 4))) + "]"
        keys = [rng.choice(["a", "b", "version", "", "\\u0061"]) for _ in range(rng.randint(0, 4))]
        return "{" + ",".join('"%s":%s' % (k, value(d + 1)) for k in keys) + "}"

    text = value(0)
    if rng.random() < 0.2:
        text = " \t\n\r"[rng.randrange(4)] + text + " \n"[rng.randrange(2)]
    if rng.random() < 0.05:
        text = "[" * rng.randint(60, 70) + "]" * rng.randint(60, 70)
    return text.encode()


# --- structured fields -------------------------------------------------------------------------
def judge_sf(data):
    """http-sf's answer, and its answer under two restrictions that are ours (so a difference
    they explain is told from one they do not): no RFC 9651 Date or Display String, and byte
    sequences in canonical base64 (padded or not, zero pad bits)."""
    import http_sf
    out, notes = {}, set()
    for kind in ("dictionary", "list", "item"):
        out[kind] = sf_text(http_sf, data, kind, notes)
        for name, restrictions in (("No9651", {"9651"}), ("CanonicalBytes", {"bytes"}), ("Both", {"9651", "bytes"})):
            with restricted_sf(restrictions):
                out[kind + name] = sf_text(http_sf, data, kind, set())
    out["notes"] = sorted(notes)
    return out


def sf_text(http_sf, data, kind, notes):
    try:
        value = http_sf.parse(data, tltype=kind)
    except Exception:
        return None
    if contains(value, lambda v: type(v).__name__ in ("datetime", "DisplayString")):
        notes.add("rfc9651-type")
    try:
        return http_sf.ser(value)
    except Exception as e:
        notes.add("ser-error:" + type(e).__name__)
        return None


class restricted_sf:
    """Patches http-sf's bare-item dispatch for the duration of a `with`."""
    def __init__(self, restrictions):
        self.restrictions = restrictions

    def __enter__(self):
        from http_sf import bare_item, byteseq
        self.saved = dict(bare_item._parse_map)
        if "9651" in self.restrictions:
            del bare_item._parse_map[ord("%")]
            del bare_item._parse_map[ord("@")]
        if "bytes" in self.restrictions:
            original = byteseq.parse_byteseq

            def canonical(state):
                start = state.cursor + 1
                value = original(state)
                content = bytes(state.data[start:state.cursor - 1])
                encoded = base64.b64encode(value)
                if content not in (encoded, encoded.rstrip(b"=")):
                    state.fail("not canonical base64")
                return value
            bare_item._parse_map[ord(":")] = canonical

    def __exit__(self, *exc):
        from http_sf import bare_item
        bare_item._parse_map.clear()
        bare_item._parse_map.update(self.saved)


def contains(value, test):
    if test(value):
        return True
    if isinstance(value, dict):
        return any(contains(v, test) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains(v, test) for v in value)
    return False


def generate_sf(rng):
    def key():
        return rng.choice(["a", "b", "*k", "sig1", "created", "keyid", "alg", "a-b_c.d*", "A", "1a"])

    def bare():
        return rng.choice([str(rng.randint(-10**15, 10**15)), "%d.%d" % (rng.randint(-10**12, 10**12), rng.randint(0, 9999)),
                           '"str \\" \\\\ x"', '"ed25519"', "tok/en:x*", "*", ":" + base64.b64encode(bytes(rng.randrange(256) for _ in range(rng.randint(0, 9)))).decode() + ":",
                           "?1", "?0", "@1700000000", '%"%c3%a9"', "1.", "-", '"\x7f"'])

    def params():
        return "".join(";" + key() + ("" if rng.random() < 0.3 else "=" + bare()) for _ in range(rng.randint(0, 3)))

    def member():
        if rng.random() < 0.3:
            return "(" + " ".join(bare() + params() for _ in range(rng.randint(0, 3))) + ")" + params()
        return bare() + params()

    kind = rng.randrange(3)
    sep = rng.choice([", ", ",", " ,\t", ",,"])
    if kind == 0:
        text = sep.join(key() + ("" if rng.random() < 0.2 else "=" + member()) for _ in range(rng.randint(1, 4)))
    elif kind == 1:
        text = sep.join(member() for _ in range(rng.randint(1, 4)))
    else:
        text = member()
    return (" " * rng.randint(0, 1) + text + " " * rng.randint(0, 1)).encode()


# --- base64 ------------------------------------------------------------------------------------
def judge_base64(data):
    def strict(text, altchars):
        if b"=" not in text:
            text = text + b"=" * (-len(text) % 4)
        try:
            return base64.b64decode(text, altchars=altchars, validate=True).hex()
        except (binascii.Error, ValueError):
            return None

    def lenient(text, url):
        try:
            return (base64.urlsafe_b64decode(text) if url else base64.b64decode(text)).hex()
        except (binascii.Error, ValueError):
            return None

    return {"url": strict(data, b"-_"), "std": strict(data, None),
            "urlLenient": lenient(data, True), "stdLenient": lenient(data, False)}


def generate_base64(rng):
    raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
    text = rng.choice([base64.urlsafe_b64encode, base64.b64encode])(raw)
    if rng.random() < 0.5:
        text = text.rstrip(b"=")
    return text


# --- jtd ---------------------------------------------------------------------------------------
_SCHEMA = None


def judge_jtd(data):
    import jtd
    global _SCHEMA
    if _SCHEMA is None:
        with open(os.path.join(ROOT, "schema", "badges-rpc.schema.json")) as f:
            definitions = json.load(f)["definitions"]
        _SCHEMA = jtd.Schema.from_dict({"definitions": definitions, "ref": "request"})
    try:
        instance = json.loads(data.decode("utf-8"), parse_constant=lambda _: float("nan"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {"json": False}
    if contains(instance, lambda v: isinstance(v, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in v)) or \
            contains(instance, lambda v: isinstance(v, dict) and any(0xD800 <= ord(c) <= 0xDFFF for k in v for c in k)):
        return {"json": True, "loneSurrogate": True}  # JSON to Python only (the JSON comparison's business)
    try:
        errors = [{"instancePath": e.instance_path, "schemaPath": e.schema_path} for e in jtd.validate(schema=_SCHEMA, instance=instance)]
    except Exception as e:
        return {"json": True, "exception": f"{type(e).__name__}: {e}"}
    return {"json": True, "errors": errors}


_JTD_SEEDS = []


def generate_jtd(rng):
    if not _JTD_SEEDS:
        _JTD_SEEDS.extend(s for s in corpus("jtd-request") if valid_json(s))
    value = json.loads(rng.choice(_JTD_SEEDS))

    def walk(v):
        if isinstance(v, dict):
            for k in list(v):
                r = rng.random()
                if r < 0.1:
                    del v[k]
                elif r < 0.25:
                    v[k] = rng.choice([None, True, 0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, "", "x", [], {}, "2026-01-01T00:00:00Z"])
                else:
                    walk(v[k])
            if rng.random() < 0.1:
                v[rng.choice(["extra", "type", "version"])] = rng.choice([1, "getBadgeCatalog", None])
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(value)
    return json.dumps(value, separators=(",", ":")).encode()


def valid_json(data):
    try:
        json.loads(data)
        return True
    except ValueError:
        return False


# --- http (h11) --------------------------------------------------------------------------------
def judge_http(data):
    import h11
    conn = h11.Connection(h11.SERVER)
    out = {"verdict": "incomplete", "body": None, "ended": False}
    body = bytearray()
    if not data:  # receive_data(b"") would mean the end of the stream
        return out
    try:
        conn.receive_data(data)
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA or event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                break
            if isinstance(event, h11.Request):
                out.update(verdict="request", method=event.method.hex(), target=event.target.hex(),
                           version=event.http_version.decode(),
                           headers=[[n.hex(), v.hex()] for n, v in event.headers.raw_items()])
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                out.update(ended=True, body=bytes(body).hex())
                break
    except h11.RemoteProtocolError as e:
        if out["verdict"] == "request":
            out["bodyError"] = str(e)
        else:
            out.update(verdict="error", error=str(e))
    return out


def generate_http(rng):
    method = rng.choice([b"GET", b"POST", b"HEAD", b"OPTIONS", b"PUT", b"DELETE", b"PATCH", b"BREW", b"get"])
    target = rng.choice([b"/", b"/rpc", b"/a?b=c", b"*", b"http://h:8080/x?y", b"//x", b"/%2f", b"/a b", b"/\xff", b"/[x]"])
    version = rng.choice([b"HTTP/1.1", b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"HTTP/1.10", b"http/1.1"])
    eol = rng.choice([b"\r\n"] * 8 + [b"\n", b"\r"])
    lines = [method + b" " + target + b" " + version]
    fields = [(b"Host", rng.choice([b"h", b"badges.example.net:443", b"[::1]", b"", b"a b", b"h:99999"]))]
    body = rng.choice([b"", b"hello", b"{}"])
    framing = rng.randrange(5)
    if framing == 1:
        fields.append((b"Content-Length", str(len(body)).encode()))
    elif framing == 2:
        fields.append((b"Transfer-Encoding", rng.choice([b"chunked", b"Chunked", b"gzip, chunked", b"chunked, chunked", b"identity"])))
        size = b"%x" % len(body)
        ext = rng.choice([b"", b";a=b", b";a=\"q\\\"\"", b" ;x", b";"])
        body = (size + ext + b"\r\n" + body + b"\r\n" if body else b"") + b"0\r\n" + rng.choice([b"", b"T: v\r\n"]) + b"\r\n"
    elif framing == 3:
        fields.append((b"Content-Length", rng.choice([b"1, 1", b"+1", b"01", b"", b"99999999999999999999"])))
    for _ in range(rng.randint(0, 3)):
        fields.append(rng.choice([(b"Connection", b"close"), (b"Expect", b"100-continue"), (b"X-A", b" v  "), (b"X-B", b"caf\xe9"),
                                  (b"Bad Name", b"x"), (b"X-C", b"a\x00b"), (b"X-D", b"")]))
    rng.shuffle(fields[1:]) if len(fields) > 2 else None
    head = eol.join(lines + [n + b":" + rng.choice([b" ", b"", b"\t"]) + v for n, v in fields]) + eol + eol
    if rng.random() < 0.05:
        head = head.replace(b"\r\nX-A:", b"\r\n X-A:")
    return (rng.choice([b"", b"\r\n"]) if rng.random() < 0.1 else b"") + head + body


# kind: (judge, seeds, dictionary tokens, generator, share of generated inputs [, whether to mutate them too])
KINDS = {
    "json": (judge_json, lambda: corpus("json"), lambda: dictionary("json"), generate_json, 0.3),
    "sf": (judge_sf, lambda: [l for s in corpus("structured-fields") for l in s.split(b"\n")], lambda: dictionary("structured-fields"),
           generate_sf, 0.4),
    "base64": (judge_base64, lambda: corpus("base64url"), lambda: dictionary("base64url"), generate_base64, 0.5),
    "jtd": (judge_jtd, lambda: [s for s in corpus("jtd-request") if valid_json(s)], lambda: dictionary("jtd-request"), generate_jtd,
            (0.6, False)),
    "http": (judge_http, lambda: corpus("http-request", strip=2), lambda: dictionary("http-request"), generate_http, 0.5),
}


def main():
    kind = sys.argv[1]
    judge, seeds, tokens, generate, generated = KINDS[kind]
    generated, mutate_generated = generated if isinstance(generated, tuple) else (generated, True)
    if sys.argv[2] == "judge":  # given inputs, one hex line each: their verdicts only
        for line in sys.stdin.read().split():
            sys.stdout.write(json.dumps(judge(bytes.fromhex(line)), separators=(",", ":")) + "\n")
        return
    seed, count = int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    out = sys.stdout
    for data in inputs(rng, seeds(), tokens(), generate, count, generated, mutate_generated):
        out.write(data.hex() + "\t" + json.dumps(judge(data), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
