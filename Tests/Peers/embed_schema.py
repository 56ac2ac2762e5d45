#!/usr/bin/env python3
"""Regenerates Sources/Schema/BadgeRPCSchemaText.swift from schema/badges-rpc.schema.json.

The service runs from its binary alone, so the schema is compiled in as a raw string
literal; schema/badges-rpc.schema.json stays the readable source, and the Swift test
BadgeRPCSchemaTests.embeddedTextMatchesFile checks that the two are byte-identical.
Run from the repository root: python3 Tests/Peers/embed_schema.py
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[2]
source = root / "schema" / "badges-rpc.schema.json"
target = root / "Sources" / "Schema" / "BadgeRPCSchemaText.swift"

text = source.read_text(encoding="utf-8")
json.loads(text)  # refuse to embed a file that is not JSON
if '"""#' in text or "\\#" in text or "\r" in text:
    sys.exit("schema text cannot be embedded in a #\"\"\"...\"\"\"# literal as is")
if not text.endswith("\n"):
    sys.exit("schema file must end with a newline")

swift = (
    "// Generated from schema/badges-rpc.schema.json by Tests/Peers/embed_schema.py: edit the JSON\n"
    "// file and re-run the script; a test checks that this text equals the file byte for byte.\n"
    "\n"
    "extension BadgeRPCSchema {\n"
    "    /// The text of `schema/badges-rpc.schema.json`, compiled into the binary.\n"
    "    public static let text: String = #\"\"\"\n"
    + text  # ends with "\n"; the blank line below keeps that newline inside the literal
    + "\n\"\"\"#\n"
    "}\n"
)
target.write_text(swift, encoding="utf-8")
print(f"wrote {target.relative_to(root)} ({len(text.encode())} bytes of schema)")
