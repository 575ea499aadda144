"""Reads N records of every partition of a topic from the beginning with
kafka-python and prints them as JSON: [[partition, offset, value], ...]
in partition then offset order.

Usage: kafka_consume.py BOOTSTRAP TOPIC N
"""

import json
import sys
import time

from kafka import KafkaConsumer, TopicPartition


def main():
    bootstrap, topic, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    deadline = time.time() + 30
    partitions = None
    while not partitions:
        partitions = consumer.partitions_for_topic(topic)
        if time.time() > deadline:
            sys.exit(f"topic {topic} not found at {bootstrap}")
    assigned = [TopicPartition(topic, p) for p in sorted(partitions)]
    consumer.assign(assigned)
    consumer.seek_to_beginning(*assigned)
    records = []
    while len(records) < wanted:
        if time.time() > deadline:
            sys.exit(f"only {len(records)} of {wanted} records read: {records}")
        for batch in consumer.poll(timeout_ms=500).values():
            for m in batch:
                records.append([m.partition, m.offset, m.value.decode("utf-8")])
    records.sort(key=lambda r: (r[0], r[1]))
    print(json.dumps(records))


if __name__ == "__main__":
    main()
