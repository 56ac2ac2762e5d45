#!/usr/bin/env python3
"""Regenerates the Swift files that embed the JTD schemas of schema/.

schema/badges-rpc.schema.json -> Sources/Schema/BadgeRPCSchemaText.swift (BadgeRPCSchema.text)
schema/wallet.schema.json     -> Sources/Wallet/WalletSchemaText.swift (WalletSchema.text)

The service runs from its binary alone, so each schema is compiled in as a raw string
literal; the JSON files stay the readable source, and the Swift tests
BadgeRPCSchemaTests.embeddedTextMatchesFile and WalletSchemaTests check that each pair is
byte-identical. Run from the repository root: python3 Tests/Peers/embed_schema.py
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[2]
EMBEDDED = [
    ("schema/badges-rpc.schema.json", "Sources/Schema/BadgeRPCSchemaText.swift", "BadgeRPCSchema"),
    ("schema/wallet.schema.json", "Sources/Wallet/WalletSchemaText.swift", "WalletSchema"),
]

for source_name, target_name, type_name in EMBEDDED:
    source = root / source_name
    target = root / target_name
    text = source.read_text(encoding="utf-8")
    json.loads(text)  # refuse to embed a file that is not JSON
    if '"""#' in text or "\\#" in text or "\r" in text:
        sys.exit(f"{source_name}: schema text cannot be embedded in a #\"\"\"...\"\"\"# literal as is")
    if not text.endswith("\n"):
        sys.exit(f"{source_name}: schema file must end with a newline")
    swift = (
        f"// Generated from {source_name} by Tests/Peers/embed_schema.py: edit the JSON\n"
        "// file and re-run the script; a test checks that this text equals the file byte for byte.\n"
        "\n"
        f"extension {type_name} {{\n"
        f"    /// The text of `{source_name}`, compiled into the binary.\n"
        "    public static let text: String = #\"\"\"\n"
        + text  # ends with "\n"; the blank line below keeps that newline inside the literal
        + "\n\"\"\"#\n"
        "}\n"
    )
    target.write_text(swift, encoding="utf-8")
    print(f"wrote {target.relative_to(root)} ({len(text.encode())} bytes of schema)")
