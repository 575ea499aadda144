#!/usr/bin/env python3
"""Drives the official canal-python 0.4 client, unmodified, against a live
`sluice server`.

Usage: canal_live_check.py HOST PORT DESTINATION FILTER PHASE

Prints one line per step, "RESULT " followed by JSON, for the Rust test to
check. Where the test must act (write to the database), the script prints a
step and waits for a line on stdin.

Each entry is printed with its entry type, header (file, offset, event
type, schema, table) and, for ROWDATA, the RowChange: event type, isDdl,
sql, and every row's before and after columns with name, value, isKey,
updated, isNull, mysqlType, sqlType and index.

A "mark" is a row of the table `sentinel` whose `tag` column the test
names; the test writes one as the last transaction of each step. Waiting
for a mark reads with get_without_ack and rolls back (batch 0, everything
outstanding) until one batch holds the mark's transaction end, so that batch
is everything the test wrote, whatever the server's timing.

PHASE "first":
  connect, check_valid, subscribe with FILTER; "subscribed"; wait.
  The batch up to mark "one" ("first"); rollback of that batch id; the same
  entries again under a new id ("redelivered"); ack; an empty get ("empty").
  "acked"; wait. Every entry up to mark "two" is now in the store: a batch of
  3 entries (one transaction) is acked ("acked_batch"), the next 3 are read
  without ack ("unacked"); then the client disconnects and exits.
PHASE "resume":
  a new client: connect, check_valid, subscribe (canal-python rolls back
  first); the batch up to mark "two" ("resumed"); ack; get is empty ("done").
"""

import json
import sys
import time

from canal.client import Client
from canal.protocol import EntryProtocol_pb2

SENTINEL_TABLE = "sentinel"


def out(kind, **fields):
    fields["kind"] = kind
    print("RESULT " + json.dumps(fields), flush=True)


def wait_for_go():
    if not sys.stdin.readline():
        raise SystemExit("stdin closed")


def column(c):
    return {
        "index": c.index,
        "name": c.name,
        "value": c.value,
        "isKey": c.isKey,
        "updated": c.updated,
        "isNull": c.isNull,
        "mysqlType": c.mysqlType,
        "sqlType": c.sqlType,
    }


def entry(e):
    h = e.header
    d = {
        "entryType": EntryProtocol_pb2.EntryType.Name(e.entryType),
        "logfileName": h.logfileName,
        "logfileOffset": h.logfileOffset,
        "eventType": EntryProtocol_pb2.EventType.Name(h.eventType) if h.HasField("eventType") else None,
        "schemaName": h.schemaName,
        "tableName": h.tableName,
    }
    if e.entryType == EntryProtocol_pb2.EntryType.ROWDATA:
        rc = EntryProtocol_pb2.RowChange()
        rc.MergeFromString(e.storeValue)
        d["rowChange"] = {
            "eventType": EntryProtocol_pb2.EventType.Name(rc.eventType),
            "isDdl": rc.isDdl,
            "sql": rc.sql,
            "rows": [
                {
                    "before": [column(c) for c in r.beforeColumns],
                    "after": [column(c) for c in r.afterColumns],
                }
                for r in rc.rowDatas
            ],
        }
    return d


def holds_mark(entries, tag):
    """Whether the entries hold the row `tag` of the sentinel table and the
    end of its transaction."""
    seen = False
    for e in entries:
        if e.entryType == EntryProtocol_pb2.EntryType.ROWDATA and e.header.tableName == SENTINEL_TABLE:
            rc = EntryProtocol_pb2.RowChange()
            rc.MergeFromString(e.storeValue)
            for r in rc.rowDatas:
                if any(c.name == "tag" and c.value == tag for c in r.afterColumns):
                    seen = True
        elif seen and e.entryType == EntryProtocol_pb2.EntryType.TRANSACTIONEND:
            return True
    return False


def batch_up_to(client, tag):
    """The first batch (getWithoutAck, 1000 entries) that holds mark `tag`;
    batches that do not yet are rolled back."""
    for _ in range(600):
        message = client.get_without_ack(1000)
        if message["id"] and holds_mark(message["entries"], tag):
            return message
        if message["id"]:
            client.rollback(0)
        time.sleep(0.05)
    raise SystemExit("mark %r not delivered within 30 s" % tag)


def report(step, message):
    out("batch", step=step, id=message["id"], entries=[entry(e) for e in message["entries"]])


def login(host, port, destination, table_filter):
    client = Client()
    client.connect(host=host, port=port)
    client.check_valid()
    client.subscribe(client_id=b"1001", destination=destination, filter=table_filter)
    return client


def first(client):
    out("subscribed")
    wait_for_go()

    batch = batch_up_to(client, "one")
    report("first", batch)
    client.rollback(batch["id"])
    again = client.get_without_ack(1000)
    report("redelivered", again)
    client.ack(again["id"])
    empty = client.get_without_ack(1000)
    out("empty", id=empty["id"], count=len(empty["entries"]))

    out("acked")
    wait_for_go()
    batch_up_to(client, "two")
    client.rollback(0)
    acked = client.get_without_ack(3)
    report("acked_batch", acked)
    client.ack(acked["id"])
    unacked = client.get_without_ack(3)
    report("unacked", unacked)
    client.disconnect()


def resume(client):
    batch = batch_up_to(client, "two")
    report("resumed", batch)
    client.ack(batch["id"])
    last = client.get(1000)
    out("done", id=last["id"], count=len(last["entries"]))
    client.disconnect()


def main():
    host, port, destination, table_filter, phase = sys.argv[1:6]
    client = login(host, int(port), destination.encode(), table_filter.encode())
    if phase == "first":
        first(client)
    elif phase == "resume":
        resume(client)
    else:
        raise SystemExit("unknown phase %r" % phase)


if __name__ == "__main__":
    main()
