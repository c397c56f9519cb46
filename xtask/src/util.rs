use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

pub fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// The program and its arguments, for messages: never the environment (keys and
/// database URLs travel there), and a bearer header argument redacted.
pub fn describe(cmd: &Command) -> String {
    let mut words = vec![cmd.get_program().to_string_lossy().into_owned()];
    for arg in cmd.get_args() {
        let arg = arg.to_string_lossy();
        words.push(if arg.starts_with("Authorization:") {
            "Authorization: [redacted]".to_owned()
        } else {
            arg.into_owned()
        });
    }
    words.join(" ")
}

/// Runs a command to completion; fails with its name and exit status.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let what = describe(cmd);
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Runs a command and returns its stdout.
pub fn output(cmd: &mut Command) -> Result<String, String> {
    let what = describe(cmd);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

pub fn is_root() -> bool {
    output(Command::new("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
}

/// Spawns `cmd` and waits (30 s at most) for its stdout line starting with `label`,
/// returning what follows: the services (and anvil) bind port 0 and print the address
/// they got. The rest of stdout is passed through when `echo`, else dropped.
pub fn spawn_reporting(
    cmd: &mut Command,
    label: &str,
    echo: bool,
) -> Result<(std::process::Child, String), String> {
    use std::io::BufRead;
    let what = describe(cmd);
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let label = label.to_owned();
    std::thread::spawn(move || {
        let mut reported = false;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            match line.strip_prefix(&label) {
                Some(rest) if !reported => {
                    reported = true;
                    let _ = tx.send(rest.trim().to_owned());
                }
                _ if echo => println!("{line}"),
                _ => {}
            }
        }
    });
    match rx.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(address) => Ok((child, address)),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(format!("{what} never reported its address"))
        }
    }
}
