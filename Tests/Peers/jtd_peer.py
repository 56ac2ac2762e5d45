#!/usr/bin/env python3
"""Second JTD validator for differential tests: PyPI jtd 0.1.1 (pinned in requirements.txt).

Reads one JSON request on stdin and writes one JSON answer on stdout.

  {"mode": "definitions", "schema": S, "cases": [{"definition": D, "instance": I}, ...]}
      validates each I against definition D of root schema S (as the schema {"definitions": ..., "ref": D});
  {"mode": "schemas", "cases": [{"schema": S, "instance": I, "options"?: {"maxDepth": n, "maxErrors": n}}, ...]}
      validates each I against its own S;
  {"mode": "checkSchemas", "schemas": [S, ...]}
      runs jtd's schema checks on each S.

Answers: for validation, one entry per case, either a list of
{"instancePath": [...], "schemaPath": [...]} or {"exception": "..."}; for checkSchemas,
one entry per schema, null when accepted or the error text.

Schema.validate() is not called before validating: in jtd 0.1.1 it rejects every schema that
uses additionalProperties (it checks for a string where the RFC requires a boolean).
"""
import json
import sys

import jtd


def errors_of(schema, instance, options=None):
    options = options or {}
    opts = jtd.ValidationOptions(max_depth=options.get("maxDepth", 0), max_errors=options.get("maxErrors", 0))
    try:
        return [{"instancePath": e.instance_path, "schemaPath": e.schema_path}
                for e in jtd.validate(schema=schema, instance=instance, options=opts)]
    except Exception as e:  # report, do not die: a crash is a finding too
        return {"exception": f"{type(e).__name__}: {e}"}


def main():
    request = json.load(sys.stdin)
    mode = request["mode"]
    out = []
    if mode == "definitions":
        definitions = request["schema"]["definitions"]
        compiled = {}
        for case in request["cases"]:
            name = case["definition"]
            if name not in compiled:
                compiled[name] = jtd.Schema.from_dict({"definitions": definitions, "ref": name})
            out.append(errors_of(compiled[name], case["instance"]))
    elif mode == "schemas":
        for case in request["cases"]:
            try:
                schema = jtd.Schema.from_dict(case["schema"])
            except Exception as e:
                out.append({"exception": f"{type(e).__name__}: {e}"})
                continue
            out.append(errors_of(schema, case["instance"], case.get("options")))
    elif mode == "checkSchemas":
        for s in request["schemas"]:
            try:
                if not isinstance(s, dict):
                    raise TypeError("schema not an object")
                jtd.Schema.from_dict(s).validate()
                out.append(None)
            except Exception as e:
                out.append(f"{type(e).__name__}: {e}")
    else:
        sys.exit(f"unknown mode {mode!r}")
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
