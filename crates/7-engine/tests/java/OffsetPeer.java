// The Java side of the offset store tests: reads and writes offsets the
// way Java Debezium fleets do, so the bytes Sluice reads and writes are
// checked against the JVM's own serialization, gzip and Curator.
//
//   OffsetPeer read-file <path>                    ObjectInputStream, as Kafka's FileOffsetBackingStore loads
//   OffsetPeer write-file <path> <k> <v> ...       ObjectOutputStream, as it saves
//   OffsetPeer read-gzip <path>                    the same inside GZIPInputStream
//   OffsetPeer write-gzip <path> <k> <v> ...       the same inside GZIPOutputStream
//   OffsetPeer zk-read <connect> <node>            Curator getData().decompressed()
//   OffsetPeer zk-write <connect> <node> <k> <v> ...
//                                                  Curator setData().compressed().withVersion(-1),
//                                                  the node created with its parents when missing
//
// A reader prints `ENTRY <key>\t<value>` per entry (UTF-8; `null` for a
// null value), then `END`. A writer prints `WRITTEN <entries>`. Failures
// print `ERROR <text>` and exit 1.

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

public class OffsetPeer {
    private static final PrintStream OUT =
            new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Exception e) {
            OUT.println("ERROR " + e);
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        switch (args[0]) {
            case "read-file":
                print(deserialize(Files.newInputStream(Paths.get(args[1]))));
                break;
            case "write-file":
                try (OutputStream out = Files.newOutputStream(Paths.get(args[1]))) {
                    serialize(entries(args, 2), out);
                }
                OUT.println("WRITTEN " + (args.length - 2) / 2);
                break;
            case "read-gzip":
                print(deserialize(new GZIPInputStream(Files.newInputStream(Paths.get(args[1])))));
                break;
            case "write-gzip":
                try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(Paths.get(args[1])))) {
                    serialize(entries(args, 2), out);
                }
                OUT.println("WRITTEN " + (args.length - 2) / 2);
                break;
            case "zk-read":
                try (CuratorFramework client = curator(args[1])) {
                    byte[] data = client.getData().decompressed().forPath(args[2]);
                    print(deserialize(new ByteArrayInputStream(data)));
                }
                break;
            case "zk-write":
                try (CuratorFramework client = curator(args[1])) {
                    if (client.checkExists().forPath(args[2]) == null) {
                        client.create().creatingParentsIfNeeded()
                                .withMode(CreateMode.PERSISTENT).forPath(args[2], new byte[0]);
                    }
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    serialize(entries(args, 3), bytes);
                    client.setData().compressed().withVersion(-1).forPath(args[2], bytes.toByteArray());
                }
                OUT.println("WRITTEN " + (args.length - 3) / 2);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    private static CuratorFramework curator(String connect) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.newClient(
                connect, 10000, 10000, new ExponentialBackoffRetry(200, 5));
        client.start();
        if (!client.blockUntilConnected(15, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("no ZooKeeper connection to " + connect);
        }
        return client;
    }

    private static HashMap<byte[], byte[]> entries(String[] args, int from) {
        HashMap<byte[], byte[]> map = new HashMap<>();
        for (int i = from; i + 1 < args.length; i += 2) {
            map.put(args[i].getBytes(StandardCharsets.UTF_8), args[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return map;
    }

    private static void serialize(HashMap<byte[], byte[]> map, OutputStream out) throws Exception {
        ObjectOutputStream os = new ObjectOutputStream(out);
        os.writeObject(map);
        os.flush();
    }

    @SuppressWarnings("unchecked")
    private static Map<byte[], byte[]> deserialize(InputStream in) throws Exception {
        try (ObjectInputStream is = new ObjectInputStream(in)) {
            return (Map<byte[], byte[]>) is.readObject();
        }
    }

    private static void print(Map<byte[], byte[]> map) {
        for (Map.Entry<byte[], byte[]> e : map.entrySet()) {
            String key = e.getKey() == null ? "null" : new String(e.getKey(), StandardCharsets.UTF_8);
            String value = e.getValue() == null ? "null" : new String(e.getValue(), StandardCharsets.UTF_8);
            OUT.println("ENTRY " + key + "\t" + value);
        }
        OUT.println("END");
    }
}
