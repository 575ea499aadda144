#!/usr/bin/env python3
"""Drives the official canal-python 0.4 client, unmodified, against a server.

Usage: canal_client_check.py HOST PORT DESTINATION FILTER

Prints one line per step, "RESULT " followed by JSON, for the Rust test to
check. Where the test must act (feed the destination), the script prints a
step and waits for a line on stdin.

Steps: connect, check_valid, subscribe with FILTER; first batch with
get_without_ack; rollback of that batch and the same entries again; ack;
an empty get; a second batch left un-acked; disconnect; a new client
(subscribe rolls back first) gets that batch again; ack; get() is empty.
"""

import json
import sys
import time

from canal.client import Client
from canal.protocol import EntryProtocol_pb2


def out(kind, **fields):
    fields["kind"] = kind
    print("RESULT " + json.dumps(fields), flush=True)


def wait_for_go():
    if not sys.stdin.readline():
        raise SystemExit("stdin closed")


def column(c):
    return {
        "index": c.index,
        "sqlType": c.sqlType,
        "name": c.name,
        "isKey": c.isKey,
        "updated": c.updated,
        "isNull": c.isNull,
        "value": c.value,
        "mysqlType": c.mysqlType,
    }


def entry(e):
    h = e.header
    d = {
        "entryType": e.entryType,
        "header": {
            "version": h.version,
            "logfileName": h.logfileName,
            "logfileOffset": h.logfileOffset,
            "serverId": h.serverId,
            "serverenCode": h.serverenCode,
            "executeTime": h.executeTime,
            "sourceType": h.sourceType,
            "schemaName": h.schemaName,
            "tableName": h.tableName,
            "eventType": h.eventType,
            "props": [[p.key, p.value] for p in h.props],
        },
    }
    if e.entryType == EntryProtocol_pb2.EntryType.ROWDATA:
        rc = EntryProtocol_pb2.RowChange()
        rc.MergeFromString(e.storeValue)
        d["rowChange"] = {
            "tableId": rc.tableId,
            "eventType": rc.eventType,
            "isDdl": rc.isDdl,
            "rows": [
                {
                    "before": [column(c) for c in r.beforeColumns],
                    "after": [column(c) for c in r.afterColumns],
                }
                for r in rc.rowDatas
            ],
        }
    elif e.entryType == EntryProtocol_pb2.EntryType.TRANSACTIONBEGIN:
        tb = EntryProtocol_pb2.TransactionBegin()
        tb.MergeFromString(e.storeValue)
        d["threadId"] = tb.threadId
    elif e.entryType == EntryProtocol_pb2.EntryType.TRANSACTIONEND:
        te = EntryProtocol_pb2.TransactionEnd()
        te.MergeFromString(e.storeValue)
        d["transactionId"] = te.transactionId
    return d


def next_batch(client, batch_size=100):
    """Polls get_without_ack (timeout -1, the client's default) until data comes."""
    for _ in range(200):
        message = client.get_without_ack(batch_size)
        if message["id"]:
            return message
        time.sleep(0.05)
    raise SystemExit("no batch within 10 s")


def report(step, message):
    out("batch", step=step, id=message["id"], entries=[entry(e) for e in message["entries"]])


def login(host, port, destination, table_filter):
    client = Client()
    client.connect(host=host, port=port)
    client.check_valid()
    client.subscribe(client_id=b"1001", destination=destination, filter=table_filter)
    return client


def main():
    host, port, destination, table_filter = sys.argv[1:5]
    port = int(port)
    destination = destination.encode()
    table_filter = table_filter.encode()

    client = login(host, port, destination, table_filter)
    out("subscribed")
    wait_for_go()

    first = next_batch(client)
    report("first", first)
    client.rollback(first["id"])
    again = next_batch(client)
    report("redelivered", again)
    client.ack(again["id"])
    empty = client.get_without_ack(100)
    out("empty", id=empty["id"], count=len(empty["entries"]))

    out("acked")
    wait_for_go()
    unacked = next_batch(client)
    report("unacked", unacked)
    client.disconnect()

    client = login(host, port, destination, table_filter)
    resumed = next_batch(client)
    report("resumed", resumed)
    client.ack(resumed["id"])
    last = client.get(100)
    out("done", id=last["id"], count=len(last["entries"]))
    client.disconnect()


if __name__ == "__main__":
    main()
