// A Java participant in a Curator LeaderLatch, driven by the leader_latch
// tests through stdin and reporting on stdout, one event per line:
//
//   args:   <connect string> <latch path> <participant id>
//   stdout: STARTED <our node path>, LEADER, NOT_LEADER,
//           PARTICIPANT <id> <isLeader> ... PARTICIPANTS_END, CLOSED, ERROR <text>
//   stdin:  participants | close | exit
//
// Built from the Debian Curator packages (5.4.0) with the default
// connection-state policy, so it steps down on SUSPENDED like Curator does
// in production.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class LatchPeer {
    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LatchPeer <connect string> <latch path> <id>");
            System.exit(2);
        }
        CuratorFramework client = CuratorFrameworkFactory.newClient(
                args[0], 6000, 4000, new ExponentialBackoffRetry(200, 5));
        client.start();
        LeaderLatch latch = new LeaderLatch(client, args[1], args[2]);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                say("LEADER");
            }

            @Override
            public void notLeader() {
                say("NOT_LEADER");
            }
        });
        latch.start();
        // The node is created in the background: report it once it exists.
        while (latch.getOurPath() == null) {
            Thread.sleep(20);
        }
        say("STARTED " + latch.getOurPath());

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        boolean open = true;
        String line;
        while ((line = in.readLine()) != null) {
            try {
                switch (line.trim()) {
                    case "participants":
                        for (Participant p : latch.getParticipants()) {
                            say("PARTICIPANT " + p.getId() + " " + p.isLeader());
                        }
                        say("PARTICIPANTS_END");
                        break;
                    case "close":
                        if (open) {
                            // NOTIFY_LEADER so the test sees the step-down.
                            latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
                            open = false;
                        }
                        say("CLOSED");
                        break;
                    case "exit":
                        client.close();
                        return;
                    default:
                        say("ERROR unknown command " + line);
                }
            } catch (Exception e) {
                say("ERROR " + e);
            }
        }
        client.close();
    }
}
