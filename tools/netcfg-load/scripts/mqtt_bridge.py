"""The bridge a user would write without netcfg's outputs: read the
configuration's User data stream (CDP over UDP) with the vendor's decoder
(cdp-py), and publish each PositionV3 to an MQTT broker with paho-mqtt, one
message per position, QoS 0.

Run by the bench's outputs part (tools/netcfg-load/src/bench/outputs.rs) to
compare its CPU per position with netcfg's own MQTT output:

    python3 mqtt_bridge.py BROKER_HOST BROKER_PORT STREAM_ADDRESS STREAM_PORT TOPIC_PREFIX

It joins STREAM_ADDRESS when it is a multicast group (the default User
stream is 239.255.76.67:7667), and otherwise binds it. The topic of a
position is `{TOPIC_PREFIX}/tags/{serial_number}/position`, its payload the
JSON netcfg's output publishes (without `error_mm`, which CDP does not
carry).

It starts paused: it reads the stream and throws the datagrams away. Commands,
one a line on standard input, each answered by one line on standard output
that starts with `bridge `:
- `resume`: decode and publish from now on;
- `pause`: back to reading and throwing away;
- `count`: `bridge published=N datagrams=N positions=N errors=N gaps=N`,
  the counts since the start (`published`: publish calls paho accepted;
  `positions`: PositionV3 items decoded while publishing; `gaps`:
  datagrams missing from the stream's sequence numbers).
It exits at the end of its standard input.
"""

import ipaddress
import json
import os
import socket
import struct
import sys
import threading
import time

import cdp
import paho.mqtt.client as mqtt

POSITION_V3 = 0x0135
# CDP's network time counts 65,536 ticks per unit of netcfg's (1/975,000 s).
TICKS_PER_UNIT = 65_536


class Counts:
    def __init__(self):
        self.published = 0
        self.datagrams = 0
        self.positions = 0
        self.errors = 0
        self.gaps = 0
        self.active = False
        self.last_sequence = None

    def line(self):
        return (
            f"bridge published={self.published} datagrams={self.datagrams} "
            f"positions={self.positions} errors={self.errors} gaps={self.gaps}"
        )


def open_stream(address, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
    if ipaddress.ip_address(address).is_multicast:
        sock.bind(("", port))
        membership = struct.pack("4s4s", socket.inet_aton(address), socket.inet_aton("0.0.0.0"))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
    else:
        sock.bind((address, port))
    return sock


def control(counts):
    for command in sys.stdin:
        command = command.strip()
        if command == "resume":
            counts.active = True
        elif command == "pause":
            counts.active = False
        elif command != "count":
            print(f"bridge unknown command {command!r}", flush=True)
            continue
        print(counts.line(), flush=True)
    # The bench closed our input: it is done with us.
    sys.stdout.flush()
    os._exit(0)


def main():
    host, port, address, stream_port, prefix = sys.argv[1:6]
    sock = open_stream(address, int(stream_port))
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bridge-{stream_port}")
    client.connect(host, int(port), keepalive=30)
    client.loop_start()
    counts = Counts()
    threading.Thread(target=control, args=(counts,), daemon=True).start()
    success = mqtt.MQTT_ERR_SUCCESS
    while True:
        data = sock.recv(65_536)
        counts.datagrams += 1
        if not counts.active:
            counts.last_sequence = None
            continue
        try:
            packet = cdp.CDP(data)
        except ValueError:
            counts.errors += 1
            continue
        if counts.last_sequence is not None:
            counts.gaps += (packet.sequence - counts.last_sequence - 1) & 0xFFFF_FFFF
        counts.last_sequence = packet.sequence
        now_ms = int(time.time() * 1000)
        for item in packet.data_items_by_type.get(POSITION_V3, ()):
            counts.positions += 1
            payload = json.dumps(
                {
                    "x": item.x,
                    "y": item.y,
                    "z": item.z,
                    "quality": item.quality,
                    "network_time": item.network_time // TICKS_PER_UNIT,
                    "time_ms": now_ms,
                },
                separators=(",", ":"),
            )
            topic = f"{prefix}/tags/{item.serial_number}/position"
            if client.publish(topic, payload, qos=0).rc == success:
                counts.published += 1
            else:
                counts.errors += 1


if __name__ == "__main__":
    main()
