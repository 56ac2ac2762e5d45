#!/usr/bin/env python3
"""JSON Schema 2020-12 validator for the JTD translation tests: PyPI jsonschema (pinned in
requirements.txt) with format checking, rfc3339-validator checking `date-time` as JTD requires
for timestamps.

Reads one JSON request on stdin and writes one JSON answer on stdout.

  {"schemas": [S, ...], "cases": [{"schema": k, "instance": I, "ref"?: R}, ...]}
      checks every S against the 2020-12 metaschema, then validates each I against S number k
      (or, with "ref", against the subschema at the JSON Pointer fragment R of S, e.g.
      "#/components/schemas/request" for an OpenAPI document).

Answers {"schemaErrors": [null or text per S], "valid": [true/false per case]}.
"""
import json
import sys

import jsonschema
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012


def main():
    request = json.load(sys.stdin)
    checker = Draft202012Validator.FORMAT_CHECKER
    if "date-time" not in checker.checkers:
        sys.exit("jsonschema has no date-time checker: rfc3339-validator is missing")
    schema_errors, validators = [], []
    for k, schema in enumerate(request["schemas"]):
        try:
            Draft202012Validator.check_schema(schema)
            schema_errors.append(None)
        except jsonschema.exceptions.SchemaError as e:
            schema_errors.append(str(e.message))
        uri = f"urn:badge-service:schema:{k}"
        resource = Resource.from_contents(schema, default_specification=DRAFT202012)
        registry = Registry().with_resource(uri, resource)
        validators.append((uri, schema, registry))
    valid = []
    compiled = {}
    for case in request["cases"]:
        uri, schema, registry = validators[case["schema"]]
        ref = case.get("ref")
        key = (case["schema"], ref)
        if key not in compiled:
            target = schema if ref is None else {"$ref": uri + ref}
            compiled[key] = Draft202012Validator(target, registry=registry, format_checker=checker)
        valid.append(compiled[key].is_valid(case["instance"]))
    json.dump({"schemaErrors": schema_errors, "valid": valid}, sys.stdout)


if __name__ == "__main__":
    main()
