"""Parses a scrape of /metrics (on standard input) with the Prometheus
project's own Python client, prometheus_client, and prints its version,
then one JSON line per sample: [name, {labels}, value]. Fails (non-zero)
when the text is not the Prometheus text format."""

import json
import sys
from importlib.metadata import version

from prometheus_client.parser import text_string_to_metric_families

print(json.dumps({"prometheus_client": version("prometheus_client")}))
for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        print(json.dumps([sample.name, sample.labels, sample.value]))
