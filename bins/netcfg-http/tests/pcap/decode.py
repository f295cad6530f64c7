"""Reads a capture with dpkt (not netcfg's own reader) and decodes every
UDP payload with the vendor's cdp-py; prints a JSON summary on stdout.

usage: decode.py FILE
"""

import json
import sys

import cdp
import dpkt

POSITION_V3 = 0x0135


def main(path):
    summary = {"records": 0, "cdp": 0, "errors": [], "ports": {}, "positions": [], "serials": []}
    with open(path, "rb") as file:
        reader = dpkt.pcap.Reader(file)
        link = reader.datalink()
        for _time, data in reader:
            summary["records"] += 1
            packet = dpkt.ip.IP(data) if link in (101, 12, 14) else dpkt.ethernet.Ethernet(data).data
            udp = packet.data
            if not isinstance(udp, dpkt.udp.UDP):
                summary["errors"].append("record %d is not UDP" % summary["records"])
                continue
            port = str(udp.dport)
            summary["ports"][port] = summary["ports"].get(port, 0) + 1
            try:
                decoded = cdp.CDP(bytes(udp.data))
            except ValueError as error:
                summary["errors"].append("record %d: %s" % (summary["records"], error))
                continue
            summary["cdp"] += 1
            serial = decoded.serial_number.as_int
            if serial not in summary["serials"]:
                summary["serials"].append(serial)
            for item in decoded.data_items_by_type.get(POSITION_V3, []):
                summary["positions"].append(
                    [item.serial_number.as_int, item.network_time, item.x, item.y, item.z]
                )
    json.dump(summary, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
