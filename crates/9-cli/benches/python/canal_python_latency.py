#!/usr/bin/env python3
"""The official canal-python 0.4 client, unmodified, as the latency
benchmark's consumer.

Usage: canal_python_latency.py HOST PORT DESTINATION ROWS

Connects, subscribes, then loops on `Client.get(1000)` (canal-python's own
get: a GET without ack, then an ack of the batch), pausing 200 us after an
empty batch. For every batch holding inserted rows it prints their ids (the
first column) on one line, flushed at once, so the benchmark stamps their
arrival. Ends once ROWS rows other than the warm-up row (id 0) arrived.
"""

import sys
import time

from canal.client import Client
from canal.protocol import EntryProtocol_pb2


def connect(host, port, destination):
    deadline = time.time() + 60
    while True:
        client = Client()
        try:
            client.connect(host=host, port=port)
            client.check_valid(username=b"", password=b"")
            client.subscribe(client_id=b"1001", destination=destination.encode(), filter=b"")
            return client
        except Exception:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def main():
    host, port, destination, rows = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    client = connect(host, port, destination)
    seen = 0
    while seen < rows:
        message = client.get(1000)
        ids = []
        for entry in message["entries"]:
            if entry.entryType != EntryProtocol_pb2.EntryType.ROWDATA:
                continue
            change = EntryProtocol_pb2.RowChange()
            change.MergeFromString(entry.storeValue)
            if change.eventType != EntryProtocol_pb2.EventType.INSERT:
                continue
            for row in change.rowDatas:
                ids.append(row.afterColumns[0].value)
        if ids:
            sys.stdout.write(" ".join(ids) + "\n")
            sys.stdout.flush()
            seen += sum(1 for i in ids if i != "0")
        else:
            time.sleep(0.0002)


if __name__ == "__main__":
    main()
