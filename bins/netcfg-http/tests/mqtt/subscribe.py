"""A real MQTT subscriber for the outputs' tests: Eclipse Paho (paho-mqtt 2).

    python3 subscribe.py HOST PORT TOPIC CLIENT_ID

Connects with a persistent session (clean_session False, so a broker that
persists keeps its subscription and queues QoS 1 messages across a restart),
subscribes to TOPIC at QoS 1, reconnects by itself, and prints one JSON line
per message: {"topic", "payload" (text), "qos", "retain"}, and
{"connected": true} on each connection. Runs until its standard input closes.

With MQTT_CAFILE set it speaks TLS, trusting that authority's certificate
(and checking the broker's name); with MQTT_USERNAME and MQTT_PASSWORD it
logs in.
"""

import json
import os
import sys
import threading

import paho.mqtt.client as mqtt

host, port, topic, client_id = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lock = threading.Lock()


def say(record):
    with lock:
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()


def on_connect(client, userdata, flags, reason_code, properties):
    client.subscribe(topic, qos=1)
    say({"connected": True})


def on_message(client, userdata, message):
    say({
        "topic": message.topic,
        "payload": message.payload.decode("utf-8", "replace"),
        "qos": message.qos,
        "retain": bool(message.retain),
    })


client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False)
client.on_connect = on_connect
client.on_message = on_message
if os.environ.get("MQTT_CAFILE"):
    client.tls_set(ca_certs=os.environ["MQTT_CAFILE"])
if os.environ.get("MQTT_USERNAME"):
    client.username_pw_set(os.environ["MQTT_USERNAME"], os.environ.get("MQTT_PASSWORD"))
client.reconnect_delay_set(min_delay=1, max_delay=1)
client.connect_async(host, port, keepalive=10)
client.loop_start()
sys.stdin.read()
client.loop_stop()
