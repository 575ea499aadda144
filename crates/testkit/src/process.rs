//! Starting and ending server processes.
//!
//! On Linux every server is started with `PR_SET_PDEATHSIG = SIGKILL`, so a test
//! binary that dies (panic=abort, a runner's timeout, Ctrl-C) takes its servers
//! with it instead of leaving them running. The kernel sends that signal when the
//! *thread* that forked the child ends, not the process, so all spawns go through
//! one long-lived thread: a server started by a short-lived test thread and kept
//! in a `static` keeps running until the process exits.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

type SpawnRequest = (Command, mpsc::Sender<io::Result<Child>>);

static SPAWNER: OnceLock<Option<mpsc::Sender<SpawnRequest>>> = OnceLock::new();

fn spawner() -> Option<&'static mpsc::Sender<SpawnRequest>> {
    SPAWNER
        .get_or_init(|| {
            let (tx, rx) = mpsc::channel::<SpawnRequest>();
            let started = thread::Builder::new()
                .name("sluice-testkit-spawner".into())
                .spawn(move || {
                    for (mut cmd, reply) in rx {
                        let _ = reply.send(cmd.spawn());
                    }
                });
            started.ok().map(|_| tx)
        })
        .as_ref()
}

/// Spawns `cmd` so that it is killed when this process dies.
pub(crate) fn spawn_tied_to_process(mut cmd: Command) -> io::Result<Child> {
    let Some(tx) = spawner() else {
        // No helper thread: spawn directly, without the death signal (it would
        // fire as soon as the calling thread ends).
        return cmd.spawn();
    };
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: the closure runs between fork and exec and only makes
        // async-signal-safe calls (prctl, getppid).
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(io::Error::last_os_error());
                }
                // The parent may have died before prctl took effect.
                if libc::getppid() as u32 != parent {
                    return Err(io::Error::other("parent process exited during spawn"));
                }
                Ok(())
            });
        }
    }
    let (reply_tx, reply_rx) = mpsc::channel();
    tx.send((cmd, reply_tx))
        .map_err(|_| io::Error::other("the process-spawning thread has stopped"))?;
    reply_rx
        .recv()
        .map_err(|_| io::Error::other("the process-spawning thread has stopped"))?
}

/// Sends SIGTERM, waits up to `grace` for the process to exit, then SIGKILLs it.
/// Returns how it exited.
pub(crate) fn terminate(child: &mut Child, grace: Duration) -> io::Result<ExitStatus> {
    if let Some(status) = child.try_wait()? {
        return Ok(status);
    }
    signal(child, libc::SIGTERM);
    let deadline = Instant::now() + grace;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    kill(child)
}

/// SIGKILL and reap.
pub(crate) fn kill(child: &mut Child) -> io::Result<ExitStatus> {
    if let Some(status) = child.try_wait()? {
        return Ok(status);
    }
    // An error here means it already exited; wait() reaps it either way.
    let _ = child.kill();
    child.wait()
}

fn signal(child: &Child, sig: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: plain kill(2) on our own, not yet reaped, child.
    unsafe {
        libc::kill(pid, sig);
    }
}
