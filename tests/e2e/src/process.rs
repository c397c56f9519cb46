//! Child processes: killed when dropped, started with port-0 binds and asked for the
//! address they got, and polled rather than slept on.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A spawned binary, killed (SIGKILL) when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the binaries print on stdout once bound (they bind port 0 in tests).
pub(crate) const LISTENING: &str = "listening on ";
pub(crate) const OPERATOR: &str = "operator endpoints on ";

/// Starts `cmd` and waits for a stdout line starting with each label, returning what
/// follows it (an address): the process binds port 0 and says what it got, so no port
/// is taken, released and handed over. The rest of stdout is drained and dropped.
pub fn spawn_reporting(cmd: &mut Command, labels: &[&str]) -> (Proc, Vec<String>) {
    use std::io::BufRead;
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let proc = Proc(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut found: Vec<Option<String>> = vec![None; labels.len()];
    let deadline = Instant::now() + Duration::from_secs(30);
    while found.iter().any(Option::is_none) {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("the process never reported {labels:?}"));
        for (slot, label) in found.iter_mut().zip(labels) {
            if let Some(rest) = line.strip_prefix(label) {
                *slot = Some(rest.trim().to_owned());
            }
        }
    }
    (proc, found.into_iter().flatten().collect())
}

/// Polls `check` every 200 ms until it yields a value or `timeout` passes.
pub async fn poll<T, F, Fut>(timeout: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(v) = check().await {
            return Some(v);
        }
        if started.elapsed() > timeout {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
