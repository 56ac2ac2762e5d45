"""Parses a Prometheus text-format exposition with the reference Python client's parser
(prometheus_client.parser.text_string_to_metric_families), an independent reader of what
our /metrics serves.

stdin:  the exposition text
stdout: JSON list of {"name", "type", "samples": [{"name", "labels", "value"}]}, one per family
Exits non-zero with the parser's error if the text does not parse.
"""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def number(value):
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": family.name,
        "type": family.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": number(s.value)} for s in family.samples],
    })
json.dump(families, sys.stdout)
