//! The cluster scripts of `integrations/slurm/` on a real Slurm: a one-node Slurm started on
//! this machine (`integrations/slurm/one-node.sh`, Debian's packages, as root; `.ci/run`
//! installs them), and on it (a) a table build as a chain of sliced layers, one slice
//! cancelled while it runs, byte-identical to a one-machine build; (b) a Kalah proof split
//! over a frontier into 24 parts, a position that outgrew its budget split again, combined
//! to the one-machine values of every move; (c) a
//! match in 4 slices whose report equals the one-machine run's. The three are submitted at
//! once and share the node.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::support::limits::cannot_run_here;
use crate::support::{BIN, fresh_dir, scaled};

/// The scripts' folder.
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/slurm")
}

/// A one-node Slurm of this test: its daemons' files under `dir`; stopped (and every job
/// cancelled) when dropped.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    /// `None` when this process is not root (the daemons run as root) and
    /// `SOWFAN_TEST_SKIP` names `slurm`; not root otherwise fails the test.
    fn start(dir: &Path) -> Option<Cluster> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            cannot_run_here(
                "slurm",
                "a one-node Slurm is started as root (its daemons run as root; one-node.sh \
                 installs Debian's slurmctld, slurmd, slurm-client and munge when missing)",
            );
            return None;
        }
        let port = free_port_pair();
        let out = Command::new(scripts().join("one-node.sh"))
            .arg("start")
            .arg(dir)
            .env("SOWFAN_SLURM_PORT", port.to_string())
            .output()
            .expect("run one-node.sh");
        assert!(
            out.status.success(),
            "one-node.sh start failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Some(Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
        })
    }

    /// `program` with this cluster's configuration.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf);
        command
    }

    /// Run `program ARGS` to its end; its output, asserted successful.
    fn run(&self, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> String {
        let out = self.command(program).args(args).output().expect("run");
        assert_success(&out, &format!("{args:?}"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The queue, for a failure's message.
    fn queue(&self) -> String {
        self.command("squeue")
            .args(["-o", "%i %j %T %r %E"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self
            .command("scancel")
            .args(["--full", "-u", "root"])
            .output();
        let _ = Command::new(scripts().join("one-node.sh"))
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

/// A port whose next one is free too (slurmctld's and slurmd's).
fn free_port_pair() -> u16 {
    let start = 20_000 + (std::process::id() % 20_000) as u16;
    (start..start + 2000)
        .step_by(2)
        .find(|&p| {
            TcpListener::bind(("0.0.0.0", p)).is_ok()
                && TcpListener::bind(("0.0.0.0", p + 1)).is_ok()
        })
        .expect("a free port pair")
}

fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Wait for `path` to exist (within `limit`); on failure say what the queue and the logs say.
fn await_file(cluster: &Cluster, path: &Path, limit: Duration, logs: &Path) {
    let deadline = Instant::now() + limit;
    while !path.exists() {
        if Instant::now() >= deadline {
            let mut text = String::new();
            if let Ok(entries) = std::fs::read_dir(logs) {
                let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                names.sort();
                for name in names {
                    let log = std::fs::read_to_string(&name).unwrap_or_default();
                    text += &format!("--- {}\n{log}", name.display());
                }
            }
            panic!(
                "'{}' not there after {limit:?}; queue:\n{}\nlogs:\n{text}",
                path.display(),
                cluster.queue()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every `.sftb` file under `dir`, by its path below `dir`, with its bytes.
fn table_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)
            .expect("read a table folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "sftb") {
                let bytes = std::fs::read(&path).expect("read a table file");
                files.insert(path.strip_prefix(dir).expect("below").to_path_buf(), bytes);
            }
        }
    }
    files
}

/// A `sowfan` that records its command lines in `calls` and, the first time it is asked for
/// slice 2 of 4 of layer 12, writes its array task's id (`JOB_TASK`: `scancel` of a task's
/// own job id is refused by Slurm 22.05 as invalid, yet exits 0) to `mark` and waits (to be
/// cancelled).
fn slow_slice_wrapper(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (wrapper, calls, mark) = (dir.join("sowfan"), dir.join("calls"), dir.join("mark"));
    let script = format!(
        "#!/bin/sh\n\
         echo \"$*\" >> '{calls}'\n\
         case \" $* \" in\n\
         *' --layer 12 --shard 2/4 '*)\n\
             if [ ! -e '{mark}' ]; then echo \"${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}\" > '{mark}.tmp'; mv '{mark}.tmp' '{mark}'; sleep 600; fi ;;\n\
         esac\n\
         exec '{BIN}' \"$@\"\n",
        calls = calls.display(),
        mark = mark.display(),
    );
    std::fs::write(&wrapper, script).expect("write the wrapper");
    let _ = Command::new("chmod").arg("+x").arg(&wrapper).status();
    (wrapper, calls, mark)
}

#[test]
fn sowfan_jobs_on_a_one_node_slurm() {
    let root = fresh_dir("slurm");
    let Some(cluster) = Cluster::start(&root.join("slurm")) else {
        return;
    };
    let scripts = scripts();

    // (a) Tables: kalah up to 14 seeds, 4 slices a layer.
    let one = root.join("tables-one");
    let built = crate::support::run::output(&[
        "tablebase",
        "build",
        "kalah",
        "--seeds",
        "14",
        "--dir",
        one.to_str().expect("utf-8"),
    ]);
    assert_success(&built, "the one-machine build");
    let tables = root.join("tables");
    let tables_work = root.join("tables-work");
    std::fs::create_dir_all(&tables_work).expect("work dir");
    let (wrapper, calls, mark) = slow_slice_wrapper(&tables_work);
    let submitted = cluster.run(
        scripts.join("tables.sh"),
        &[
            "--dir",
            path(&tables),
            "--work",
            path(&tables_work),
            "--slices",
            "4",
            "--sowfan",
            path(&wrapper),
            "--",
            "kalah",
            "--seeds",
            "14",
        ],
    );
    assert!(submitted.contains("verify:"), "{submitted}");

    // (b) A proof over a frontier, 24 parts.
    let proof_work = root.join("proof");
    // A budget of 20,000 nodes a position (16 MiB of hash) leaves one frontier position
    // open: the combining job splits it again, 3 plies further, in 2 parts of its own.
    let solve_args = ["kalah", "pits=4", "seeds=3", "--hash", "16"];
    let mut launch = vec![
        "--work",
        path(&proof_work),
        "--parts",
        "24",
        "--frontier",
        "3",
        "--part-nodes",
        "20000",
        "--nested-parts",
        "2",
        "--sowfan",
        BIN,
        "--",
    ];
    launch.extend(solve_args);
    let submitted = cluster.run(scripts.join("proof.sh"), &launch);
    assert!(submitted.contains("combine:"), "{submitted}");

    // (c) A match in 4 slices.
    let match_work = root.join("match");
    let engine = format!("cmd={BIN}");
    let match_args: Vec<&str> = vec![
        "--engine",
        &engine,
        "name=small",
        "nodes=300",
        "--engine",
        &engine,
        "name=large",
        "nodes=900",
        "--game",
        "kalah",
        "--games",
        "16",
        "--openings",
        "plies=4",
        "--seed",
        "7",
        "--sprt",
        "elo0=0",
        "elo1=5",
    ];
    let mut launch = vec![
        "--work",
        path(&match_work),
        "--slices",
        "4",
        "--sowfan",
        BIN,
        "--",
    ];
    launch.extend(&match_args);
    let submitted = cluster.run(scripts.join("match.sh"), &launch);
    assert!(submitted.contains("report:"), "{submitted}");

    // (a) again: the slow slice is running; cancel it.
    await_file(
        &cluster,
        &mark,
        scaled(Duration::from_secs(120)),
        &tables_work.join("log"),
    );
    let job = std::fs::read_to_string(&mark)
        .expect("the mark")
        .trim()
        .to_string();
    cluster.run("scancel", &[&job]);

    // (b) The combination equals the one-machine proof, move by move.
    await_file(
        &cluster,
        &proof_work.join("result.txt"),
        scaled(Duration::from_secs(240)),
        &proof_work.join("log"),
    );
    let combined = std::fs::read_to_string(proof_work.join("result.txt")).expect("result");
    let mut one_machine = vec!["solve"];
    one_machine.extend(solve_args);
    one_machine.push("--all-moves");
    let alone = crate::support::run::output(&one_machine);
    assert_success(&alone, "the one-machine proof");
    let values = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                !l.starts_with("Nodes")
                    && !l.starts_with("Time")
                    && !l.starts_with("Tbhits")
                    && !l.starts_with("PV")
                    && !l.starts_with("Memory")
            })
            .map(str::to_string)
            .collect()
    };
    let alone = String::from_utf8_lossy(&alone.stdout).into_owned();
    assert_eq!(
        values(&combined),
        values(&alone),
        "combined:\n{combined}\none machine:\n{alone}"
    );
    assert!(
        values(&combined).iter().any(|l| l.starts_with("Value:")),
        "{combined}"
    );
    let nested = std::fs::read_dir(proof_work.join("open"))
        .map(|entries| entries.count())
        .unwrap_or(0);
    assert!(nested >= 1, "a position left open was split again");

    // (c) The report over the slices is the one-machine run's summary.
    await_file(
        &cluster,
        &match_work.join("report.txt"),
        scaled(Duration::from_secs(240)),
        &match_work.join("log"),
    );
    let report = std::fs::read_to_string(match_work.join("report.txt")).expect("report");
    let mut one_machine = vec!["match"];
    one_machine.extend(&match_args);
    let alone = crate::support::run::output(&one_machine);
    assert_success(&alone, "the one-machine match");
    let alone = String::from_utf8_lossy(&alone.stdout).into_owned();
    let summary = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                ["Score of", "Elo difference", "Ptnml(0-2)", "SPRT: llr"]
                    .iter()
                    .any(|p| l.starts_with(p))
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(summary(&report).len(), 4, "{report}");
    assert_eq!(
        summary(&report),
        summary(&alone),
        "report:\n{report}\none machine:\n{alone}"
    );
    assert!(report.contains("Games: 16 of 16"), "{report}");

    // (a) The chain went on after the cancelled slice and built what one machine builds.
    await_file(
        &cluster,
        &tables_work.join("done"),
        scaled(Duration::from_secs(300)),
        &tables_work.join("log"),
    );
    let (cluster_files, one_files) = (table_files(&tables), table_files(&one));
    assert_eq!(
        cluster_files.keys().collect::<Vec<_>>(),
        one_files.keys().collect::<Vec<_>>(),
        "the same table files"
    );
    for (name, bytes) in &one_files {
        assert!(
            cluster_files[name] == *bytes,
            "{} differs from the one-machine build",
            name.display()
        );
    }
    // Nothing finished was built twice: every slice of every layer but 12 was asked for
    // once; layer 12's were asked for again after the cancelled slice.
    let calls = std::fs::read_to_string(&calls).expect("calls");
    let builds: Vec<&str> = calls
        .lines()
        .filter(|l| l.starts_with("tablebase build "))
        .collect();
    let mut asked: BTreeMap<String, usize> = BTreeMap::new();
    for line in &builds {
        let at = line.find(" --layer ").expect("layer");
        let rest = &line[at..];
        let key = rest.split(" --threads").next().unwrap_or(rest).to_string();
        *asked.entry(key).or_default() += 1;
    }
    for (key, times) in &asked {
        let expected = if key.starts_with(" --layer 12 ") {
            2
        } else {
            1
        };
        assert_eq!(*times, expected, "{key} asked for {times} times:\n{calls}");
    }
    assert!(asked.contains_key(" --layer 12 --shard 2/4"), "{calls}");
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}
