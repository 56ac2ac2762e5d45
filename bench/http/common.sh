# Shared by bench/http/run and bench/http/profile (sourced; the caller sets `root`, `tmp` and
# `binary`): a free port, a data directory with funded purchases, and clients that redeemed them.

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

catalog_request='{"version":1,"request":{"type":"getBadgeCatalog"}}'
fetch_catalog() {  # port
    curl -s --max-time 5 -XPOST "127.0.0.1:$1/rpc" -H 'content-type: application/json' -d "$catalog_request"
}

# A data directory with its issuer key and `count` unredeemed 255-month codes in $tmp/codes.
prepare_data() {  # directory count
    "$binary" init --data "$1" >/dev/null
    "$binary" codes create --data "$1" --type supporter --months 255 --count "$2" >"$tmp/codes"
}

# Redeems every code in $tmp/codes through `badge-service client` (one key file each, in
# $tmp/clients), so each purchase has its current month issued: the next issueBadge asserting
# that tip is answered from the issued record.
redeem_codes() {  # port
    mkdir -p "$tmp/clients"
    local i=0
    while read -r code; do
        "$binary" client --server "http://127.0.0.1:$1" --key-file "$tmp/clients/$i.json" redeem "$code" >/dev/null
        i=$((i + 1))
    done <"$tmp/codes"
}

# Signs the pool of issueBadge requests now (`created` must stay within the service's ±300 s):
# $tmp/signed.lua for wrk, $tmp/signed.json for drive.py.
sign_pool() {  # port
    "$root/.build/release/http-signed-pool" --authority "127.0.0.1:$1" --out "$tmp/signed.lua" --json "$tmp/signed.json" \
        --per-key 4 "$tmp"/clients/*.json >/dev/null
}
