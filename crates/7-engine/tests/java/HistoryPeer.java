// The reference design's Java schema history store in ZooKeeper, as the
// history_stores tests drive it:
//
//   HistoryPeer write <connect string> <path>   records from stdin, one JSON per line:
//       each becomes a child created PERSISTENT_SEQUENTIAL at <path>/child, then
//       its data set with setData().compressed() (gzip). The line CRASH creates a
//       child and stops there (the child keeps Curator's default data, the host's
//       IP address); the line EMPTY creates a child with no data.
//   HistoryPeer read <connect string> <path>
//       prints "<child>\t<decompressed JSON>" per child in name order, or
//       "<child>\tNOT_GZIP" when getData().decompressed() fails.
//
// Built from the Debian Curator packages (5.4.0).

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

public class HistoryPeer {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: HistoryPeer write|read <connect string> <path>");
            System.exit(2);
        }
        CuratorFramework client = CuratorFrameworkFactory.newClient(
                args[1], 6000, 4000, new ExponentialBackoffRetry(200, 5));
        client.start();
        client.blockUntilConnected();
        String path = args[2];
        if (args[0].equals("write")) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) {
                    continue;
                }
                if (line.equals("EMPTY")) {
                    client.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                            .forPath(path + "/child", new byte[0]);
                    continue;
                }
                String child = client.create().creatingParentsIfNeeded()
                        .withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(path + "/child");
                if (line.equals("CRASH")) {
                    continue;
                }
                client.setData().compressed().forPath(child, line.getBytes(StandardCharsets.UTF_8));
            }
        }
        else {
            List<String> children = client.getChildren().forPath(path);
            Collections.sort(children);
            for (String child : children) {
                String json;
                try {
                    byte[] data = client.getData().decompressed().forPath(path + "/" + child);
                    json = new String(data, StandardCharsets.UTF_8);
                }
                catch (Exception e) {
                    json = "NOT_GZIP";
                }
                System.out.println(child + "\t" + json);
            }
            System.out.flush();
        }
        client.close();
    }
}
