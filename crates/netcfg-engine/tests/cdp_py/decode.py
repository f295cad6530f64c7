"""Decodes data-stream datagrams with the vendor's CDP library (cdp-py).

Used by the engine's `cdp_py` integration test. Reads lines `<stream> <hex>`
(one datagram each) from the file named by the first argument and prints one
JSON object per line:

- `{"stream", "sequence", "serial", "items": [...]}` for a datagram that
  cdp-py accepts, each item with its `type`, its `size` and the fields the
  test checks;
- `{"stream", "rejected": "<error>"}` for one it rejects (or whose items do
  not decode, or whose known items are not at their exact size).

The first line printed is `{"cdp_py": "<version>"}`. Exits 2 when cdp-py is
missing: the test must fail, not skip.
"""

import contextlib
import io
import json
import sys

try:
    import cdp
    from importlib.metadata import version
except ImportError as error:  # pragma: no cover - the test reports it
    print(f"cdp-py is not installed: {error}", file=sys.stderr)
    sys.exit(2)

# Exact sizes from ../shared/spec/cdp.md: (fixed part, multiple of the rest).
SIZES = {
    0x0135: (30, 0),
    0x0137: (20, 0),
    0x013F: (4, 1),
    0x0141: (6, 1),
    0x014A: (29, 5),
    0x0140: (8, 0),
    0x017A: (25, 0),
    0x017B: (26, 0),
    0x017C: (26, 0),
    0x0178: (31, 0),
    0x013C: (20, 0),
    0x013E: (16, 0),
    0x011A: (17, 1),
    0x011B: (0, 1),
    0x011C: (0, 1),
    0x80DB: (64, 8),
    0x80DC: (4, 2),
}

FIELDS = {
    0x0135: ["serial_number", "network_time", "x", "y", "z", "quality", "anchor_count", "flags", "smoothing"],
    0x0137: ["serial_number", "interface_id", "x", "y", "z", "role_id", "connectivity_state", "synchronization_state"],
    0x013F: ["serial_number", "name"],
    0x0141: ["role_id", "max_quantity", "active_quantity", "role_name"],
    0x014A: ["serial_number", "interface_id", "ticks_reported", "timed_rxs_reported", "beacons_reported",
             "beacons_discarded", "beacons_late", "average_quality", "report_period",
             "interanchor_comms_error_code"],
    0x0140: ["max_tx_sync_count", "current_tx_sync_count", "max_rx_sync_count", "current_rx_sync_count"],
    0x017A: ["serial_number", "network_time", "x", "y", "z", "scale"],
    0x017B: ["serial_number", "network_time", "x", "y", "z", "scale"],
    0x017C: ["serial_number", "network_time", "x", "y", "z", "scale"],
    0x0178: ["serial_number", "network_time", "x", "y", "z", "w", "quaternion_type", "quality"],
    0x013C: ["serial_number", "network_time", "pressure", "scale"],
    0x013E: ["serial_number", "network_time", "temperature", "scale"],
    0x011A: ["destination_ip", "destination_port", "interface_ip", "interface_netmask", "interface_port", "ttl", "name"],
    0x011B: ["hostname"],
    0x011C: ["instance_name"],
    0x80DB: ["zone_id", "zone_name", "z_min", "z_max", "hysteresis"],
    0x80DC: ["serial_number", "zone_list"],
}


def plain(value):
    if isinstance(value, cdp.CiholasSerialNumber):
        return str(value)
    return value


def decode(stream, data):
    # cdp-py prints a line before it rejects an overrunning item: keep it
    # out of our output.
    with contextlib.redirect_stdout(io.StringIO()):
        packet = cdp.CDP(data)
    items = []
    for item in packet.data_items:
        size = item.di_size
        fixed, rest = SIZES.get(item.type, (None, None))
        if fixed is not None:
            if size < fixed or (rest == 0 and size != fixed) or (rest and (size - fixed) % rest):
                raise ValueError(f"item 0x{item.type:04X} of {size} bytes is not at its exact size")
        entry = {"type": item.type, "size": size}
        for field in FIELDS.get(item.type, []):
            entry[field] = plain(getattr(item, field))
        if item.type == 0x014A:
            entry["bad_paired_anchors"] = len(item.bad_paired_anchors)
        if item.type == 0x80DB:
            entry["vertices"] = [[vertex.x, vertex.y] for vertex in item.vertices]
        items.append(entry)
    return {
        "stream": stream,
        "length": len(data),
        "sequence": packet.sequence,
        "serial": str(packet.serial_number),
        "items": items,
    }


def main():
    print(json.dumps({"cdp_py": version("cdp-py")}))
    with open(sys.argv[1], encoding="ascii") as lines:
        for line in lines:
            stream, hex_bytes = line.split()
            try:
                result = decode(stream, bytes.fromhex(hex_bytes))
            except Exception as error:  # every failure is a rejection
                result = {"stream": stream, "rejected": f"{type(error).__name__}: {error}"}
            print(json.dumps(result))


if __name__ == "__main__":
    main()
