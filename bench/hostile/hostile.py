"""Hostile-load acceptance of issue 8, against the release badge-service on loopback.

Scenarios (each starts its own `serve` on a free port with its own data directory):
  connections  10,000 keep-alive connections from 127.0.0.1 (reopened when the server closes
               them) while a client from 127.0.0.2 asks GET /healthz every 100 ms; run with the
               default per-address cap, then with the cap at the table size (one address fills
               the table, so only the reserve and idle eviction keep the probe served).
  memory       9,900 connections from 50 addresses each send a head declaring 65,536 bytes and
               65,535 of them; VmRSS sampled before, during, and for 30 s after they close.
  descriptors  serve under `ulimit -n 1024` with 1,100 connections from 50 addresses: with the
               default descriptor_reserve (the table is fitted under the limit) and with
               descriptor_reserve 0 (the table outgrows the descriptors: EMFILE). Signed
               redemptions of an unknown code are sent all along on connections opened first.
  fairness     signed redemptions from 127.0.0.3 alone, then beside 100 connections from
               127.0.0.1 pipelining 64 KiB bodies whose Content-Digest does not match.
Peer addresses are 127.0.0.0/8 (Linux routes all of it to loopback). Standard library, plus
`cryptography` (Ed25519) from the test peers' virtual environment for the signed requests.
"""
import base64, hashlib, json, os, re, selectors, signal, socket, subprocess, sys, tempfile, threading, time

BINARY = sys.argv[1]
SCENARIOS = sys.argv[2:] or ["connections", "memory", "descriptors", "fairness"]

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0

class Server:
    def __init__(self, ini="", ulimit=None):
        self.dir = tempfile.mkdtemp(prefix="hostile-")
        config = os.path.join(self.dir, "badge.ini")
        with open(config, "w") as f:
            f.write(ini)
        self.err = os.path.join(self.dir, "serve.err")
        command = [BINARY, "serve", "--listen", "127.0.0.1:0", "--data", os.path.join(self.dir, "data"), "--config", config]
        if ulimit:
            command = ["bash", "-c", f"ulimit -n {ulimit} && exec \"$@\"", "serve"] + command
        env = {k: v for k, v in os.environ.items() if not k.startswith("BADGE_SERVICE_")}
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(self.err, "w"), env=env)
        deadline = time.time() + 30
        while time.time() < deadline:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.stderr())
            if match:
                self.port = int(match.group(1))
                return
            time.sleep(0.05)
        raise SystemExit("serve did not start: " + self.stderr())

    def stderr(self):
        with open(self.err) as f:
            return f.read()

    def rss_mib(self):
        return rss_kib(self.process.pid) / 1024

    def cli(self, *args):
        return subprocess.run([BINARY, *args, "--data", os.path.join(self.dir, "data")], capture_output=True, text=True, check=True).stdout

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            self.process.kill()

def request(port, path, source="127.0.0.2", timeout=5.0, method="GET", body=b"", headers=""):
    """One request on a new connection: (status or None, seconds, body)."""
    start = time.monotonic()
    s = socket.socket()
    s.settimeout(timeout)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: t\r\n{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        status = int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else None
        return status, time.monotonic() - start, data.split(b"\r\n\r\n", 1)[-1]
    except OSError:
        return None, time.monotonic() - start, b""
    finally:
        s.close()

class Prober(threading.Thread):
    """GET /healthz from 127.0.0.2 every `interval` seconds, on a new connection each time."""
    def __init__(self, port, interval=0.1):
        super().__init__(daemon=True)
        self.port, self.interval, self.results, self.running = port, interval, [], True

    def run(self):
        while self.running:
            self.results.append(request(self.port, "/healthz", timeout=2.0)[:2])
            time.sleep(self.interval)

    def summary(self):
        times = sorted(t for _, t in self.results)
        ok = sum(1 for s, t in self.results if s == 200 and t <= 1.0)
        p99 = times[int(len(times) * 0.99) - 1] if times else 0
        return f"{ok}/{len(self.results)} answered 200 within 1 s (max {max(times) * 1000:.0f} ms, p99 {p99 * 1000:.1f} ms)"

class Flood:
    """Many non-blocking connections, each sending `payload` once; `reopen` replaces closed ones."""
    def __init__(self, port, count, payload, sources, reopen=False):
        self.port, self.payload, self.sources, self.reopen = port, payload, sources, reopen
        self.selector = selectors.DefaultSelector()
        self.open = {}
        self.statuses = {}
        self.closed_by_server = 0
        self.connect_errors = 0
        self.count = count
        self.started = 0

    def connect(self):
        source = self.sources[self.started % len(self.sources)]
        self.started += 1
        s = socket.socket()
        s.setblocking(False)
        try:
            s.bind((source, 0))
            s.connect_ex(("127.0.0.1", self.port))
        except OSError:
            self.connect_errors += 1
            s.close()
            return
        self.open[s.fileno()] = [s, 0, b""]
        self.selector.register(s, selectors.EVENT_WRITE | selectors.EVENT_READ)

    def fill(self):
        while len(self.open) < self.count:
            self.connect()

    def drop(self, s):
        self.selector.unregister(s)
        del self.open[s.fileno()]
        s.close()

    def step(self, timeout=0.05, reopen_budget=200):
        for key, events in self.selector.select(timeout):
            s = key.fileobj
            entry = self.open.get(s.fileno())
            if entry is None:
                continue
            if events & selectors.EVENT_WRITE and entry[1] < len(self.payload):
                try:
                    entry[1] += s.send(self.payload[entry[1]:entry[1] + 262144])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    self.closed_by_server += 1
                    self.drop(s)
                    continue
                if entry[1] >= len(self.payload):
                    self.selector.modify(s, selectors.EVENT_READ)
            if events & selectors.EVENT_READ:
                try:
                    data = s.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if data:
                    entry[2] += data
                    for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", data):
                        self.statuses[int(status)] = self.statuses.get(int(status), 0) + 1
                else:
                    self.closed_by_server += 1
                    self.drop(s)
        if self.reopen:
            for _ in range(min(reopen_budget, self.count - len(self.open))):
                self.connect()

    def run(self, seconds, each=None):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            if each:
                each()

    def close_all(self):
        for s, _, _ in list(self.open.values()):
            self.selector.unregister(s)
            s.close()
        self.open.clear()

def metric(port, name):
    _, _, body = request(port, "/metrics")
    values = re.findall(rb"^" + re.escape(name.encode()) + rb"(?:\{[^}]*\})? (\d+)", body, re.M)
    return sum(int(v) for v in values)

def labelled(port, name, label_value):
    _, _, body = request(port, "/metrics")
    values = re.findall(rb"^" + re.escape(name.encode()) + rb"\{[^}]*\"" + re.escape(label_value.encode()) + rb"\"[^}]*\} (\d+)", body, re.M)
    return sum(int(v) for v in values)

def scenario_connections():
    print("== 10,000 keep-alive connections from 127.0.0.1, /healthz from 127.0.0.2 every 100 ms")
    for label, ini in [("default per-address cap", ""),
                       ("per-address cap = table size (10,000)", "[server]\nmax_connections_per_address = 10000\n")]:
        server = Server(ini)
        flood = Flood(server.port, 10_000, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", ["127.0.0.1"], reopen=True)
        flood.fill()
        flood.run(5)
        prober = Prober(server.port)
        prober.start()
        flood.run(15)
        prober.running = False
        prober.join()
        held = metric(server.port, "badge_open_connections")
        address_full = labelled(server.port, "badge_connections_refused_total", "address_full")
        table_full = labelled(server.port, "badge_connections_refused_total", "table_full")
        evicted = metric(server.port, "badge_connections_evicted_total")
        print(f"  {label}: server held {held} connections; attacker got {flood.statuses.get(200, 0)} x 200, "
              f"{flood.statuses.get(503, 0)} x 503, {flood.closed_by_server} closes; refused address_full/table_full "
              f"{address_full}/{table_full}, evicted {evicted}")
        print(f"    probe from 127.0.0.2: {prober.summary()}")
        flood.close_all()
        server.stop()

def scenario_memory():
    print("== 9,900 unfinished 64 KiB bodies from 50 addresses")
    server = Server()
    for _ in range(50):
        request(server.port, "/healthz")
    start = server.rss_mib()
    head = b"POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 65536\r\n\r\n"
    flood = Flood(server.port, 9_900, head + b"a" * 65_535, [f"127.0.1.{i}" for i in range(1, 51)])
    flood.fill()
    peak = [start]
    flood.run(20, each=lambda: peak.append(server.rss_mib()))
    held = len(flood.open)
    print(f"  RSS before {start:.1f} MiB; peak while held {max(peak):.1f} MiB (budget 256 MiB; request buffers capped at 128 MiB)")
    print(f"  connections still open with unfinished bodies: {held}; answered 503: {flood.statuses.get(503, 0)}, 408: {flood.statuses.get(408, 0)}")
    flood.close_all()
    closed = time.monotonic()
    below = None
    samples = []
    while time.monotonic() - closed < 30:
        rss = server.rss_mib()
        samples.append(rss)
        if below is None and rss < 2 * start:
            below = time.monotonic() - closed
        time.sleep(0.25)
    print(f"  after close: RSS {samples[0]:.1f} MiB at once, {samples[-1]:.1f} MiB after 30 s; "
          + (f"below 2x start ({2 * start:.1f} MiB) after {below:.1f} s" if below is not None else "never below 2x start"))
    server.stop()

def purchase_key(public_raw):
    spki = bytes.fromhex("302a300506032b6570032100") + public_raw
    return base64.urlsafe_b64encode(spki).decode()

def signed_redeem(private, port):
    from cryptography.hazmat.primitives import serialization
    public_raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    key = purchase_key(public_raw)
    body = json.dumps({"version": 1, "purchaseKey": key, "request": {"type": "redeemBadgeCode",
        "masterKey": base64.urlsafe_b64encode(os.urandom(32)).decode(), "code": "SB-0C0QS-XAQW1-N1VSA-R00Y3"}}).encode()
    digest = "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"
    created = int(time.time())
    components = '("@method" "@authority" "@path" "content-type" "content-digest")'
    params = f'{components};created={created};keyid="{key}";alg="ed25519"'
    base = (f'"@method": POST\n"@authority": 127.0.0.1:{port}\n"@path": /rpc\n"content-type": application/json\n'
            f'"content-digest": {digest}\n"@signature-params": {params}')
    signature = base64.b64encode(private.sign(base.encode())).decode()
    head = (f"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Digest: {digest}\r\n"
            f"Signature-Input: sig1={params}\r\nSignature: sig1=:{signature}:\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode() + body

class Redeemer(threading.Thread):
    """Signed redemptions of an unknown code on keep-alive connections opened before the flood."""
    def __init__(self, port, connections=4):
        super().__init__(daemon=True)
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        self.port, self.statuses, self.running, self.latencies = port, {}, True, []
        self.keys = [Ed25519PrivateKey.generate() for _ in range(connections)]
        self.sockets = [self.connect() for _ in range(connections)]

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), source_address=("127.0.0.3", 0), timeout=10)

    def run(self):
        while self.running:
            for i, key in enumerate(self.keys):
                try:
                    s = self.sockets[i] or self.connect()
                    self.sockets[i] = s
                    started = time.monotonic()
                    s.sendall(signed_redeem(key, self.port))
                    data = b""
                    while b"\r\n\r\n" not in data:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise OSError("closed")
                        data += chunk
                    length = int(re.search(rb"Content-Length: (\d+)", data, re.I).group(1))
                    while len(data.split(b"\r\n\r\n", 1)[1]) < length:
                        data += s.recv(65536)
                    status = int(data[9:12])
                    self.latencies.append(time.monotonic() - started)
                    self.statuses[status] = self.statuses.get(status, 0) + 1
                    if b"connection: close" in data.lower():
                        raise OSError("closed after the response")
                except OSError:
                    # evicted while idle, refused, or closed: reconnect on the next round
                    self.statuses["reconnect"] = self.statuses.get("reconnect", 0) + 1
                    if self.sockets[i]:
                        self.sockets[i].close()
                    self.sockets[i] = None
            time.sleep(0.2)

def scenario_descriptors():
    print("== RLIMIT_NOFILE 1024, 1,100 connections from 50 addresses, signed redemptions from 127.0.0.3 all along")
    for label, lower_later in [("started under ulimit -n 1024 (the table is fitted under it)", False),
                               ("started with 20,000 descriptors (table 10,000), then lowered to 1024 with prlimit", True)]:
        server = Server("[limits]\nfailed_codes_per_key = 1000000\nfailed_codes_per_address = 1000000\n",
                        ulimit=None if lower_later else 1024)
        if lower_later:
            subprocess.run(["prlimit", "--pid", str(server.process.pid), "--nofile=1024:1024"], check=True)
        redeemer = Redeemer(server.port)
        redeemer.start()
        limit = metric(server.port, "badge_max_connections")
        flood = Flood(server.port, 1_100, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [f"127.0.2.{i}" for i in range(1, 51)], reopen=True)
        flood.fill()
        flood.run(8)
        ready_full = request(server.port, "/readyz", source="127.0.0.4")[0]
        emfile_lines = [l for l in server.stderr().splitlines() if "EMFILE" in l]
        flood.reopen = False
        flood.close_all()
        time.sleep(0.5)
        ready_after_close = request(server.port, "/readyz", source="127.0.0.4")[0]
        recovered_at = None
        start = time.monotonic()
        while time.monotonic() - start < 15:
            if request(server.port, "/readyz", source="127.0.0.4")[0] == 200:
                recovered_at = time.monotonic() - start
                break
            time.sleep(0.25)
        healthz = request(server.port, "/healthz", source="127.0.0.4")[0]
        redeemer.running = False
        redeemer.join()
        emfile = labelled(server.port, "badge_accept_errors_total", "EMFILE")
        print(f"  {label}: max_connections in force {limit}; attacker statuses {dict(sorted(flood.statuses.items()))}; "
              f"accept EMFILE {emfile}")
        print(f"    error lines naming EMFILE: {len(emfile_lines)}" + (f" (first: {emfile_lines[0][:200]})" if emfile_lines else ""))
        print(f"    /readyz with the table full: {ready_full}; right after the connections closed: {ready_after_close}; "
              f"200 again after {recovered_at:.1f} s" if recovered_at is not None else "    /readyz never recovered")
        print(f"    /healthz after recovery: {healthz}; signed redemptions all along: {redeemer.statuses} (500 count: {redeemer.statuses.get(500, 0)})")
        server.stop()

def percentiles(values):
    values = sorted(values)
    if not values:
        return "no answers"
    pick = lambda q: values[min(len(values) - 1, int(len(values) * q))] * 1000
    return f"p50 {pick(0.5):.1f} ms, p90 {pick(0.9):.1f} ms, max {values[-1] * 1000:.1f} ms over {len(values)}"

def redeem_in_process(port, seconds, queue):
    redeemer = Redeemer(port)
    redeemer.start()
    time.sleep(seconds)
    redeemer.running = False
    redeemer.join()
    queue.put((redeemer.latencies, redeemer.statuses))

def redeem_elsewhere(port, seconds):
    """A Redeemer in its own process, so the flood's loop in this one cannot delay it (the GIL)."""
    import multiprocessing
    queue = multiprocessing.Queue()
    process = multiprocessing.Process(target=redeem_in_process, args=(port, seconds, queue))
    process.start()
    return process, queue

def scenario_fairness():
    print("== signed redemptions from 127.0.0.3 while 127.0.0.1 posts 64 KiB bodies whose digest does not match")
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    # The guess limits would answer the redeemer rate_limited within a minute: lifted here.
    server = Server("[limits]\nfailed_codes_per_key = 1000000\nfailed_codes_per_address = 1000000\n")
    process, queue = redeem_elsewhere(server.port, 5)
    alone_latencies, alone_statuses = queue.get()
    process.join()
    # A signed request whose body is then changed: refused at the digest, before any cryptography.
    request = signed_redeem(Ed25519PrivateKey.generate(), server.port)
    head, body = request.split(b"\r\n\r\n", 1)
    head = re.sub(rb"Content-Length: \d+", b"Content-Length: 65536", head)
    forged = head + b"\r\n\r\n" + (body + b" " * 65536)[:65536]
    flood = Flood(server.port, 100, forged * 200, ["127.0.0.1"], reopen=True)
    flood.fill()
    flood.run(1)
    process, queue = redeem_elsewhere(server.port, 13)
    flood.run(14)
    beside_latencies, beside_statuses = queue.get()
    process.join()
    print(f"  alone: {percentiles(alone_latencies)}; statuses {alone_statuses}")
    print(f"  beside the flood: {percentiles(beside_latencies)}; statuses {beside_statuses}")
    print(f"  the flood got {dict(sorted(flood.statuses.items()))} in 15 s")
    flood.close_all()
    server.stop()

for name in SCENARIOS:
    {"connections": scenario_connections, "memory": scenario_memory, "descriptors": scenario_descriptors,
     "fairness": scenario_fairness}[name]()
