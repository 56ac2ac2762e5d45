#!/usr/bin/env python3
"""Checks an OpenAPI document with PyPI openapi-spec-validator (pinned in requirements.txt).

Reads the document on stdin; prints `valid OpenAPI <version>` and exits 0, or prints every
error the validator finds (one a line) and exits 1.
"""
import json
import sys

from openapi_spec_validator import OpenAPIV31SpecValidator


def main():
    document = json.load(sys.stdin)
    errors = list(OpenAPIV31SpecValidator(document).iter_errors())
    if errors:
        for e in errors:
            print(f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}", file=sys.stderr)
        sys.exit(1)
    print(f"valid OpenAPI {document.get('openapi')}")


if __name__ == "__main__":
    main()
