//! A throwaway PostgreSQL cluster for `dev` and `test`, or the server `DATABASE_URL`
//! names when it is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{free_port, is_root, output, root, run};

pub struct Postgres {
    /// URL of a database the tools may connect to (and create databases from).
    pub url: String,
    cluster: Option<Cluster>,
}

struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    run_as: Option<String>,
    port: u16,
}

impl Cluster {
    fn command(&self, tool: &str) -> Command {
        let program = self.bin.join(tool);
        match &self.run_as {
            // initdb and postgres refuse to run as root: run them as an ordinary user.
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        }
    }
}

fn find_bin_dir() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file());
    if let Some(dir) = on_path {
        // Distributions often link only some tools onto PATH: use the real bin directory.
        let real = std::fs::canonicalize(dir.join("initdb"))
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        return Ok(real.filter(|r| r.join("createdb").is_file()).unwrap_or(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path().join("bin"))
                .filter(|b| b.join("initdb").is_file())
                .collect()
        })
        .unwrap_or_default();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions.pop().ok_or_else(|| {
        "PostgreSQL server binaries not found: `initdb` and `pg_ctl` are neither on PATH nor under \
         /usr/lib/postgresql/*/bin. Install them (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL."
            .to_owned()
    })
}

/// A directory the cluster's user can own and reach.
fn prepare_data_dir(name: &str, run_as: Option<&str>) -> Result<PathBuf, String> {
    let candidates = [
        root().join("target").join(name).join("pg"),
        std::env::temp_dir().join(format!("stablepay-{name}-pg")),
    ];
    for dir in candidates {
        if dir.join("postmaster.pid").exists() {
            // A cluster left running by an interrupted run: stop it before reuse.
            let _ = Command::new("pg_ctl")
                .arg("-D")
                .arg(&dir)
                .args(["-m", "immediate", "stop"])
                .output();
        }
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let Some(user) = run_as else { return Ok(dir) };
        run(Command::new("chown").args(["-R", user]).arg(&dir))?;
        let reachable = Command::new("runuser")
            .args(["-u", user, "--", "test", "-w"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if reachable {
            return Ok(dir);
        }
    }
    Err("no directory the PostgreSQL user can write to (tried target/ and the temp dir)".into())
}

/// `DATABASE_URL` when set: the operator's own server, used instead of a throwaway one.
pub fn external_url() -> Option<String> {
    std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
}

impl Postgres {
    /// Uses `DATABASE_URL` if set, else starts a fresh cluster named `name`.
    pub fn provision(name: &str) -> Result<Self, String> {
        Self::provision_with(name, "")
    }

    /// As [`Postgres::provision`], with extra server options (`-c name=value ...`) for a
    /// fresh cluster.
    pub fn provision_with(name: &str, extra_options: &str) -> Result<Self, String> {
        if let Some(url) = external_url() {
            println!("xtask: using DATABASE_URL ({})", redact(&url));
            return Ok(Self { url, cluster: None });
        }
        let bin = find_bin_dir()?;
        let run_as = if is_root() {
            let user = ["postgres", "nobody"]
                .into_iter()
                .find(|u| Command::new("id").arg(u).output().is_ok_and(|o| o.status.success()))
                .ok_or("running as root and no `postgres` or `nobody` user exists to run PostgreSQL as")?;
            Some(user.to_owned())
        } else {
            None
        };
        let data = prepare_data_dir(name, run_as.as_deref())?;
        let port = free_port()?;
        let cluster = Cluster {
            bin,
            data,
            run_as,
            port,
        };
        println!(
            "xtask: starting PostgreSQL on 127.0.0.1:{port} (data in {})",
            cluster.data.display()
        );
        output(
            cluster
                .command("initdb")
                .arg("-D")
                .arg(&cluster.data)
                .args([
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--no-sync",
                    "-E",
                    "UTF8",
                    "--locale=C",
                ]),
        )?;
        // STABLEPAY_PG_OPTIONS adds server options for profiling (for example
        // `-c log_min_duration_statement=20`); the log stays in the data directory.
        let profiling = std::env::var("STABLEPAY_PG_OPTIONS").unwrap_or_default();
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=300 {extra_options} {profiling}",
            cluster.data.display()
        );
        output(
            cluster
                .command("pg_ctl")
                .arg("-D")
                .arg(&cluster.data)
                .args(["-o", &options, "-l"])
                .arg(cluster.data.join("server.log"))
                .args(["-w", "-t", "60", "start"]),
        )?;
        Ok(Self {
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            cluster: Some(cluster),
        })
    }

    /// Creates a database on the throwaway cluster; with `DATABASE_URL` the URL is used as is.
    pub fn database(&self, name: &str) -> Result<String, String> {
        let Some(c) = &self.cluster else {
            return Ok(self.url.clone());
        };
        output(c.command("createdb").args([
            "-h",
            "127.0.0.1",
            "-p",
            &c.port.to_string(),
            "-U",
            "postgres",
            name,
        ]))?;
        Ok(format!("postgres://postgres@127.0.0.1:{}/{name}", c.port))
    }

    pub fn stop(&mut self) {
        if let Some(c) = self.cluster.take() {
            let _ = c
                .command("pg_ctl")
                .arg("-D")
                .arg(&c.data)
                .args(["-m", "fast", "-w", "stop"])
                .output();
            // The server log outlives the cluster, beside it, for reading after a bench.
            let _ = std::fs::copy(
                c.data.join("server.log"),
                c.data.with_file_name("server.log"),
            );
            let _ = std::fs::remove_dir_all(&c.data);
        }
    }

    /// The PostgreSQL binaries of the throwaway cluster (pgbench, psql).
    pub fn bin_dir(&self) -> Option<std::path::PathBuf> {
        match &self.cluster {
            Some(c) => Some(c.bin.clone()),
            None => find_bin_dir().ok(),
        }
    }

    /// Runs `sql` on database URL `db` with psql; returns its unaligned, tuples-only output.
    pub fn psql(&self, db: &str, sql: &str) -> Result<String, String> {
        let bin = self
            .bin_dir()
            .map_or_else(|| PathBuf::from("psql"), |d| d.join("psql"));
        let out = Command::new(bin)
            .args([
                db,
                "-X",
                "-q",
                "-t",
                "-A",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ])
            .output()
            .map_err(|e| format!("psql: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    pub fn data_dir(&self) -> Option<&Path> {
        self.cluster.as_ref().map(|c| c.data.as_path())
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://***{}", &url[..s], &url[at..]),
        _ => url.to_owned(),
    }
}
