//! The fuzzer: lines in batches to one engine, every answer matched against the model,
//! failures counted, the engine restarted after a hang or crash, and `quit` at the end.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use sowfan::protocol::request::{self, Request as Cmd};

use super::lines::{Corpus, Cost, Generator, cost, engine_lines};
use super::model::{
    Expect, Model, Q_BENCH, Q_BESTMOVE, Q_FEN, Q_IDENT, Q_LEGAL, Q_NOTE, Q_PERFT, Q_RESPONSE,
    QUEUE_NAMES, QUEUES, describe, queue_of,
};
use super::process::{Msg, Proc};
use super::stats::{Fail, Stats};
use super::{
    BATCH_TIMEOUT, MARKER, MAX_DETAILS, QUIT_TIMEOUT, READY_TIMEOUT, SLOW_STOP, STALL, STOP_EVERY,
    clip,
};
use crate::support::rng::Rng;
use crate::support::scaled;

/// Lines to send once the engine has answered `after` (expectations by queue), if given.
struct Segment {
    after: Option<[u64; QUEUES]>,
    /// The number of `bestmove`s, the stopped search's included, once it has answered.
    stop_target: Option<u64>,
    bytes: Vec<u8>,
}

enum Wait {
    Done,
    Timeout,
    Dead,
}

pub(super) struct Fuzzer {
    seed: u64,
    generator: Generator,
    model: Model,
    proc: Proc,
    /// Per queue: the expectation, the line it answers, and (for a read-only command sent
    /// while an open-ended search runs) the `bestmove` count it should come before.
    queues: [VecDeque<(Expect, String, Option<u64>)>; QUEUES],
    /// While set, read-only commands are sent while an open-ended search runs (the `bestmove`
    /// count that answers it).
    early: Option<u64>,
    /// Expectations queued and answered so far, by queue.
    pushed: [u64; QUEUES],
    answered: [u64; QUEUES],
    ready_sent: u64,
    ready_seen: u64,
    /// An `info … score …` line since the last `bestmove`.
    score_seen: bool,
    /// When the last answer (not `info`) arrived.
    last_answer: Instant,
    /// The search last reported as stalled (by its `bestmove` count), to report it once.
    stalled_noted: Option<u64>,
    /// Searches told to stop: the `bestmove` count that answers them, and when.
    stop_watch: VecDeque<(u64, Instant)>,
    /// The `UCI_Variant` and `GameOptions` defaults of the last `uci`/`ugi` answer.
    ident: (String, String),
    bench_nodes: HashMap<Option<u32>, u64>,
    marker: u64,
    synced: bool,
    dead: bool,
    /// The final `go infinite` and `quit` have been sent: a `bestmove` now is a failure.
    quitting: bool,
    batch_failed: bool,
    stderr_tail: VecDeque<String>,
    /// `SOWFAN_FUZZ_DUMP`: a file that receives every byte sent.
    dump: Option<std::fs::File>,
    pub(super) stats: Stats,
}

impl Fuzzer {
    pub(super) fn new(seed: u64) -> Fuzzer {
        Fuzzer {
            seed,
            generator: Generator {
                rng: Rng::new(seed),
                corpus: Corpus::default(),
            },
            model: Model::new(),
            proc: Proc::start(),
            queues: Default::default(),
            pushed: [0; QUEUES],
            answered: [0; QUEUES],
            early: None,
            ready_sent: 0,
            ready_seen: 0,
            score_seen: false,
            last_answer: Instant::now(),
            stop_watch: VecDeque::new(),
            stalled_noted: None,
            ident: Default::default(),
            bench_nodes: HashMap::new(),
            marker: 0,
            synced: false,
            dead: false,
            quitting: false,
            batch_failed: false,
            stderr_tail: VecDeque::new(),
            dump: std::env::var_os("SOWFAN_FUZZ_DUMP")
                .map(|path| std::fs::File::create(path).expect("create SOWFAN_FUZZ_DUMP")),
            stats: Stats::default(),
        }
    }

    fn fail(&mut self, kind: Fail, detail: String) {
        let s = &mut self.stats;
        match kind {
            Fail::Panic => s.panics += 1,
            Fail::Hang => s.hangs += 1,
            Fail::Crash => s.crashes += 1,
            Fail::Internal => s.internal += 1,
            Fail::Mismatch => s.mismatches += 1,
            Fail::Missing => s.missing += 1,
            Fail::Unexpected => s.unexpected += 1,
            Fail::Quit => s.quit_failures += 1,
        }
        if s.details.len() < MAX_DETAILS {
            s.details
                .push(format!("batch {}: {kind:?}: {detail}", s.batches));
        }
        self.batch_failed = true;
    }

    /// Send bytes and account for them.
    fn send(&mut self, bytes: Vec<u8>) {
        self.stats.lines += bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        self.stats.bytes += bytes.len() as u64;
        if let Some(dump) = &mut self.dump {
            dump.write_all(&bytes).expect("write SOWFAN_FUZZ_DUMP");
        }
        self.proc.send(bytes);
    }

    /// Run `line` through the model, queue what it must answer, and append it to `batch`.
    fn feed(&mut self, line: Vec<u8>, batch: &mut Vec<u8>) {
        let mut expects = Vec::new();
        let mut raw_lengths = line.split(|&b| b == b'\n').map(<[u8]>::len);
        for text in engine_lines(&line) {
            let before = expects.len();
            // protocol.md: a line over 1 MiB (its bytes before the `\n`) is skipped with an
            // error.
            let raw = raw_lengths.next().unwrap_or(0);
            let kind = if raw > sowfan::protocol::MAX_LINE_BYTES {
                expects.push(Expect::Error);
                "overlong"
            } else {
                self.model.apply(&text, &mut expects)
            };
            let rejected = expects[before..].iter().any(|e| matches!(e, Expect::Error));
            let count = self.stats.kinds.entry(kind).or_default();
            if rejected {
                count.1 += 1;
            } else {
                count.0 += 1;
            }
            let source = clip(&text, 160);
            // protocol.md: during `go infinite` / `go ponder`, read-only commands (and lines
            // that do not parse) are answered at once, before the search's `bestmove`.
            let parsed = request::parse(&text);
            let early = match &parsed {
                Ok(Some(Cmd::IsReady)) | Ok(None) => self.early,
                Ok(Some(c)) if c.is_read_only() => self.early,
                Err(_) => self.early,
                _ => None,
            };
            self.early = early;
            let mut opened = None;
            for expect in expects.drain(before..).collect::<Vec<_>>() {
                match queue_of(&expect) {
                    None => self.ready_sent += 1,
                    Some(q) => {
                        if q == Q_BESTMOVE {
                            self.stats.gos += 1;
                            if let (
                                Ok(Some(Cmd::Go(_))),
                                Expect::Bestmove {
                                    over: false,
                                    open: true,
                                    ..
                                },
                            ) = (&parsed, &expect)
                            {
                                opened = Some(self.pushed[q] + 1);
                            }
                        }
                        self.pushed[q] += 1;
                        let early = early.filter(|_| q != Q_BESTMOVE);
                        self.queues[q].push_back((expect, source.clone(), early));
                    }
                }
            }
            if opened.is_some() {
                self.early = opened;
            }
        }
        batch.extend_from_slice(&line);
    }

    /// One line to send, with its line end; whether a `stop` must follow it.
    fn next_line(&mut self) -> (Vec<u8>, bool) {
        for _ in 0..50 {
            let g = &mut self.generator;
            let long = g.rng.one_in(2500);
            let mut line = if long {
                g.long_line(&self.model)
            } else {
                g.base_line(&self.model)
            };
            let mutated = g.rng.one_in(5);
            if mutated {
                g.mutate(&mut line);
            }
            let end: &[u8] = match g.rng.below(100) {
                0..=84 => b"\n",
                85..=97 => b"\r\n",
                98 => b"\r\r\n",
                _ => b" \n",
            };
            line.extend_from_slice(end);
            let mut needs_stop = false;
            let mut reject = false;
            for text in engine_lines(&line) {
                if let Ok(Some(command)) = request::parse(&text) {
                    match cost(&command, self.model.session.to_move()) {
                        Cost::Fine => {}
                        Cost::NeedsStop => needs_stop = true,
                        Cost::Reject => reject = true,
                    }
                }
            }
            if reject {
                continue;
            }
            self.stats.mutated += mutated as u64;
            self.stats.long_lines += long as u64;
            return (line, needs_stop);
        }
        (b"isready\n".to_vec(), false)
    }

    /// A batch of lines, in segments: after a search that needs a `stop`, the rest waits
    /// until the engine has answered everything before that search (so that it has started
    /// and the `stop` that follows reaches it, as with a GUI).
    fn make_batch(&mut self, size: usize) -> Vec<Segment> {
        let mut segments = Vec::new();
        let mut bytes = Vec::new();
        let mut after = None;
        let mut stop_target = None;
        // Countdowns to the `stop` owed to open-ended searches.
        let mut stops: Vec<usize> = Vec::new();
        for _ in 0..size {
            let (line, needs_stop) = self.next_line();
            if needs_stop {
                // Stop the open-ended searches before it first.
                for _ in stops.drain(..) {
                    self.feed(b"stop\n".to_vec(), &mut bytes);
                }
            }
            let before = self.pushed;
            self.feed(line, &mut bytes);
            if needs_stop {
                segments.push(Segment {
                    after,
                    stop_target,
                    bytes: std::mem::take(&mut bytes),
                });
                after = Some(before);
                stop_target = (self.pushed[Q_BESTMOVE] == before[Q_BESTMOVE] + 1)
                    .then_some(self.pushed[Q_BESTMOVE]);
            }
            for s in stops.iter_mut() {
                *s = s.saturating_sub(1);
            }
            let due = stops.iter().filter(|&&s| s == 0).count();
            stops.retain(|&s| s > 0);
            for _ in 0..due {
                if self.generator.rng.one_in(4) {
                    self.feed(b"ponderhit\n".to_vec(), &mut bytes);
                }
                self.feed(b"stop\n".to_vec(), &mut bytes);
            }
            if needs_stop {
                stops.push(self.generator.rng.below(4));
            }
        }
        for _ in stops {
            self.feed(b"stop\n".to_vec(), &mut bytes);
        }
        segments.push(Segment {
            after,
            stop_target,
            bytes,
        });
        segments
    }

    fn on_msg(&mut self, msg: Msg) {
        match msg {
            Msg::Out(line) => self.on_stdout(line),
            Msg::Err(line) => {
                self.stats.stderr_lines += 1;
                if line.contains("panicked at") {
                    self.fail(Fail::Panic, format!("stderr: {}", clip(&line, 300)));
                }
                if self.stderr_tail.len() == 20 {
                    self.stderr_tail.pop_front();
                }
                self.stderr_tail.push_back(clip(&line, 300));
            }
            Msg::OutClosed => self.dead = true,
        }
    }

    fn on_stdout(&mut self, line: String) {
        self.stats.out_lines += 1;
        self.stats.out_bytes += line.len() as u64 + 1;
        if line.contains("panicked at") {
            self.fail(Fail::Panic, format!("stdout: {}", clip(&line, 300)));
        }
        if line.starts_with("info string error: internal error") {
            // A caught panic: counted once, not matched against the errors expected.
            self.fail(Fail::Internal, clip(&line, 300));
            return;
        }
        if line == "readyok" {
            self.last_answer = Instant::now();
            self.ready_seen += 1;
            return;
        }
        if line.starts_with("info ") && !line.starts_with("info string") && line.contains(" score ")
        {
            self.score_seen = true;
        }
        if let Some(rest) = line.strip_prefix("option name UCI_Variant type combo default ") {
            self.ident.0 = rest.split(' ').next().unwrap_or("").to_string();
        }
        if let Some(rest) = line.strip_prefix("option name GameOptions type string default ") {
            self.ident.1 = rest.to_string();
        }
        let marker_prefix = format!("info string warning: unknown option '{MARKER}");
        if let Some(rest) = line.strip_prefix(&marker_prefix) {
            let n: u64 = rest
                .split('\'')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            self.on_marker(n, &line);
            return;
        }
        let q = if line.starts_with("bestmove") {
            Q_BESTMOVE
        } else if line.starts_with("response ") {
            Q_RESPONSE
        } else if line == "legal" || line.starts_with("legal ") {
            Q_LEGAL
        } else if line.starts_with("Fen: ") {
            Q_FEN
        } else if line == "uciok" || line == "ugiok" {
            Q_IDENT
        } else if line.starts_with("Nodes searched: ")
            || line.starts_with("info string perft stopped after ")
        {
            // protocol.md: a `stop` ends a running perft with this line instead of the total.
            Q_PERFT
        } else if line.starts_with("Nodes searched  : ")
            || line.starts_with("info string bench stopped after ")
        {
            Q_BENCH
        } else if line.starts_with("info string error: ") {
            self.stats.errors += 1;
            Q_NOTE
        } else if line.starts_with("info string warning: ") {
            self.stats.warnings += 1;
            Q_NOTE
        } else {
            return;
        };
        self.last_answer = Instant::now();
        if q == Q_BESTMOVE && self.quitting {
            // protocol.md, `quit`: no `bestmove` is printed for a search stopped by `quit`
            // (and the `go infinite` it stops never ends by itself).
            self.stats.quit_bestmoves += 1;
            self.fail(
                Fail::Quit,
                format!(
                    "'{}' for the `go infinite` that `quit` stopped (protocol.md: none is printed)",
                    clip(&line, 300)
                ),
            );
            return;
        }
        if q == Q_BESTMOVE {
            self.stats.bestmoves += 1;
            if !self.score_seen {
                self.fail(
                    Fail::Mismatch,
                    format!("'{line}' without an 'info … score …' line before it"),
                );
            }
            self.score_seen = false;
        }
        if matches!(
            self.queues[q].front(),
            None | Some((Expect::Marker(_), _, _))
        ) {
            self.fail(
                Fail::Unexpected,
                format!("'{}' answers nothing sent", clip(&line, 300)),
            );
            return;
        }
        let (expect, source, early) = self.queues[q].pop_front().expect("an expectation");
        self.answered[q] += 1;
        if let Some(n) = early {
            if self.answered[Q_BESTMOVE] < n {
                self.stats.early_answers += 1;
            } else {
                self.stats.late_answers += 1;
                if self.stats.notes.len() < MAX_DETAILS {
                    self.stats.notes.push(format!(
                        "batch {}: '{source}' sent during an open-ended search was answered after \
                         its bestmove",
                        self.stats.batches
                    ));
                }
            }
        }
        if q == Q_BESTMOVE {
            self.stopped();
        }
        if let Err(why) = self.check(&expect, &line) {
            self.fail(
                Fail::Mismatch,
                format!(
                    "{why}: expected '{}', got '{}' (answer to '{source}')",
                    describe(&expect),
                    clip(&line, 300)
                ),
            );
        }
    }

    fn check(&mut self, expect: &Expect, line: &str) -> Result<(), String> {
        let same = |text: &str| {
            if line == text {
                Ok(())
            } else {
                Err("wrong answer".to_string())
            }
        };
        match expect {
            Expect::Bestmove {
                over,
                allowed,
                ponder,
                ..
            } => {
                let words: Vec<&str> = line.split(' ').collect();
                let shape_ok = words.len() == 2
                    || (words.len() == 4 && words[2] == "ponder" && ponder.is_some());
                if words[0] != "bestmove" || !shape_ok {
                    return Err("malformed bestmove".into());
                }
                let mv = words[1];
                if *over {
                    return if mv == "0000" {
                        Ok(())
                    } else {
                        Err("a move in a finished game".into())
                    };
                }
                if !allowed.iter().any(|m| m == mv) {
                    return Err("not a legal (or allowed) move".into());
                }
                if let (Some(session), 4) = (ponder, words.len()) {
                    let mut s = session.clone_box();
                    let fen = s.fen();
                    if s.set_position(Some(&fen), &[mv, words[3]]).is_err() {
                        return Err("the ponder move is not a legal reply".into());
                    }
                }
                Ok(())
            }
            Expect::Response(r) => same(&format!("response {r}")),
            Expect::Legal(l) => same(l),
            Expect::Fen(f) => same(&format!("Fen: {f}")),
            Expect::Ident {
                ok,
                variant,
                options,
            } => {
                same(ok)?;
                if (variant, options) != (&self.ident.0, &self.ident.1) {
                    return Err(format!(
                        "identify shows UCI_Variant '{}' and GameOptions '{}'",
                        self.ident.0, self.ident.1
                    ));
                }
                Ok(())
            }
            // A `stop` sent while it ran may end a perft or bench early.
            Expect::Perft(_) | Expect::Bench(_) if line.starts_with("info string ") => Ok(()),
            Expect::Perft(Some(n)) => same(&format!("Nodes searched: {n}")),
            Expect::Perft(None) => Ok(()),
            Expect::Bench(depth) => {
                let nodes: u64 = line["Nodes searched  : ".len()..]
                    .trim()
                    .parse()
                    .map_err(|_| "unreadable node count".to_string())?;
                let first = *self.bench_nodes.entry(*depth).or_insert(nodes);
                if first != nodes {
                    return Err(format!("bench node count changed from {first}"));
                }
                Ok(())
            }
            Expect::Error if line.starts_with("info string error: ") => Ok(()),
            Expect::Warning if line.starts_with("info string warning: ") => Ok(()),
            Expect::Error | Expect::Warning => Err("an error instead of a warning or back".into()),
            Expect::Ready | Expect::Marker(_) => Err("internal: not an answer".into()),
        }
    }

    /// Time the `bestmove`s of searches told to stop.
    fn stopped(&mut self) {
        let n = self.answered[Q_BESTMOVE];
        while let Some(&(target, sent)) = self.stop_watch.front() {
            if n < target {
                break;
            }
            self.stop_watch.pop_front();
            if n == target {
                let latency = sent.elapsed();
                self.stats.stop_latencies.push(latency);
                if latency > scaled(SLOW_STOP) {
                    self.fail(
                        Fail::Hang,
                        format!("a search told to stop answered after {latency:?}"),
                    );
                }
            }
        }
    }

    /// The sync marker: everything sent before it has been answered.
    fn on_marker(&mut self, n: u64, line: &str) {
        if n != self.marker {
            self.fail(Fail::Unexpected, format!("stale marker '{line}'"));
            return;
        }
        while let Some((expect, source, _)) = self.queues[Q_NOTE].pop_front() {
            self.answered[Q_NOTE] += 1;
            if matches!(expect, Expect::Marker(_)) {
                break;
            }
            self.fail(
                Fail::Missing,
                format!("no '{}' for '{source}'", describe(&expect)),
            );
        }
        for (q, name) in QUEUE_NAMES.iter().enumerate() {
            while let Some((expect, source, _)) = self.queues[q].pop_front() {
                self.answered[q] += 1;
                self.fail(
                    Fail::Missing,
                    format!("no {name} answer '{}' for '{source}'", describe(&expect)),
                );
            }
        }
        self.synced = true;
    }

    /// Handle output until `done`, the deadline, or the engine's end. With `stop_spam`,
    /// send `stop` whenever answers stall (only what was sent before can be running).
    fn pump(&mut self, deadline: Instant, done: impl Fn(&Fuzzer) -> bool, stop_spam: bool) -> Wait {
        let started = Instant::now();
        let mut last_stop = started;
        let wait_for = if stop_spam { STOP_EVERY } else { STALL };
        loop {
            if done(self) {
                return Wait::Done;
            }
            if self.dead {
                return Wait::Dead;
            }
            let now = Instant::now();
            if now >= deadline {
                return Wait::Timeout;
            }
            if stop_spam
                && now.duration_since(self.last_answer.max(started)) >= STALL
                && now.duration_since(last_stop) >= STOP_EVERY
            {
                self.send(b"stop\n".to_vec());
                self.stats.extra_stops += 1;
                last_stop = now;
                // Which search did not end by itself (if a search it is)? Reported once.
                let stalled = self.queues[Q_BESTMOVE].front().map(|(_, s, _)| s.clone());
                if let Some(source) = stalled
                    && self.stalled_noted != Some(self.answered[Q_BESTMOVE])
                {
                    self.stalled_noted = Some(self.answered[Q_BESTMOVE]);
                    self.stats.stalls += 1;
                    if self.stats.stall_notes.len() < MAX_DETAILS / 2 {
                        self.stats.stall_notes.push(format!(
                            "batch {}: no answer for {STALL:?} while '{source}' was running (or \
                             queued): the fuzzer sent stop",
                            self.stats.batches
                        ));
                    }
                }
            }
            match self.proc.msgs.recv_timeout((deadline - now).min(wait_for)) {
                Ok(msg) => self.on_msg(msg),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => self.dead = true,
            }
        }
    }

    fn read_memory(&mut self) {
        if let Some((peak, now)) = self.proc.memory() {
            self.stats.peak_rss_kb = self.stats.peak_rss_kb.max(peak);
            self.stats.last_rss_kb = now;
        }
    }

    fn save_repro(&mut self, preamble: &str, batch: &[u8]) {
        if self.stats.repro.len() >= 10 {
            return;
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-repro");
        let path = dir.join(format!("seed{}-batch{}.txt", self.seed, self.stats.batches));
        let mut bytes = preamble.as_bytes().to_vec();
        bytes.extend_from_slice(batch);
        bytes.extend_from_slice(b"isready\n");
        if std::fs::create_dir_all(&dir).is_ok() && std::fs::write(&path, bytes).is_ok() {
            self.stats.repro.push(path);
        }
    }

    /// The engine died, hung or must be replaced: record its end and start a fresh one.
    fn restart(&mut self, why: Fail, what: &str) {
        self.read_memory();
        let status = match why {
            Fail::Crash => self.proc.wait_exit(Duration::from_secs(2)),
            _ => None,
        };
        // Collect the last words on stderr.
        while let Ok(msg) = self.proc.msgs.recv_timeout(Duration::from_millis(100)) {
            if let Msg::Err(_) = msg {
                self.on_msg(msg);
            }
        }
        let tail: Vec<String> = self.stderr_tail.drain(..).collect();
        self.fail(
            why,
            format!(
                "{what}; exit status {status:?}; stderr tail: {}",
                tail.join(" | ")
            ),
        );
        self.proc = Proc::start();
        self.model = Model::new();
        for q in &mut self.queues {
            q.clear();
        }
        self.pushed = [0; QUEUES];
        self.answered = [0; QUEUES];
        self.early = None;
        self.stop_watch.clear();
        self.ready_sent = 0;
        self.ready_seen = 0;
        self.score_seen = false;
        self.dead = false;
        self.stats.restarts += 1;
    }

    pub(super) fn run(&mut self, max_lines: u64, time_cap: Option<Duration>, progress: bool) {
        let start = Instant::now();
        let mut next_report = 100_000;
        while self.stats.lines < max_lines {
            if time_cap.is_some_and(|cap| start.elapsed() >= cap) {
                self.stats.capped = true;
                break;
            }
            self.stats.batches += 1;
            self.batch_failed = false;
            let t = Instant::now();
            let preamble = self.model.preamble();
            let size = 200 + self.generator.rng.below(801);
            let segments = self.make_batch(size);
            self.stats.generating += t.elapsed();
            let batch: Vec<u8> = segments.iter().flat_map(|s| s.bytes.clone()).collect();
            let t = Instant::now();
            let mut waited = Wait::Done;
            for segment in segments {
                if let Some(after) = segment.after {
                    waited = self.pump(
                        t + scaled(BATCH_TIMEOUT),
                        |f| (0..QUEUES).all(|q| f.answered[q] >= after[q]),
                        true,
                    );
                    if !matches!(waited, Wait::Done) {
                        break;
                    }
                    // The search is about to start (or has): let it.
                    std::thread::sleep(Duration::from_millis(2));
                }
                self.send(segment.bytes);
                if let Some(target) = segment.stop_target
                    && self.answered[Q_BESTMOVE] < target
                {
                    self.stop_watch.push_back((target, Instant::now()));
                }
            }
            self.stats.awaiting_batch += t.elapsed();
            match waited {
                Wait::Done => {}
                Wait::Timeout => {
                    self.save_repro(&preamble, &batch);
                    self.restart(
                        Fail::Hang,
                        &format!(
                            "no answers within {:?} before an open-ended search",
                            scaled(BATCH_TIMEOUT)
                        ),
                    );
                    continue;
                }
                Wait::Dead => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Crash, "the engine exited (in the batch)");
                    continue;
                }
            }

            // isready: a readyok within READY_TIMEOUT.
            self.ready_sent += 1;
            self.send(b"isready\n".to_vec());
            let sent = Instant::now();
            let waited = self.pump(
                sent + scaled(READY_TIMEOUT),
                |f| f.ready_seen >= f.ready_sent,
                false,
            );
            self.stats.awaiting_ready += sent.elapsed();
            match waited {
                Wait::Done => self.stats.latencies.push(sent.elapsed()),
                Wait::Timeout => {
                    self.save_repro(&preamble, &batch);
                    self.restart(
                        Fail::Hang,
                        &format!("no readyok within {:?}", scaled(READY_TIMEOUT)),
                    );
                    continue;
                }
                Wait::Dead => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Crash, "the engine exited (before readyok)");
                    continue;
                }
            }

            // The sync marker: every answer of the batch, within BATCH_TIMEOUT.
            self.marker += 1;
            self.synced = false;
            self.pushed[Q_NOTE] += 1;
            self.queues[Q_NOTE].push_back((Expect::Marker(self.marker), "sync".into(), None));
            self.send(format!("setoption name {MARKER}{}\n", self.marker).into_bytes());
            let t = Instant::now();
            let waited = self.pump(t + scaled(BATCH_TIMEOUT), |f| f.synced, true);
            self.stats.awaiting_batch += t.elapsed();
            match waited {
                Wait::Done => {}
                Wait::Timeout => {
                    self.save_repro(&preamble, &batch);
                    self.restart(
                        Fail::Hang,
                        &format!(
                            "the batch did not finish within {:?} (with stop repeated)",
                            scaled(BATCH_TIMEOUT)
                        ),
                    );
                    continue;
                }
                Wait::Dead => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Crash, "the engine exited (before the sync marker)");
                    continue;
                }
            }
            if let Ok(Some(status)) = self.proc.child.try_wait() {
                self.dead = true;
                self.save_repro(&preamble, &batch);
                self.restart(Fail::Crash, &format!("the engine exited with {status}"));
                continue;
            }
            self.read_memory();
            if self.batch_failed {
                self.save_repro(&preamble, &batch);
            }
            if progress && self.stats.lines >= next_report {
                next_report += 100_000;
                self.stats.elapsed = start.elapsed();
                eprintln!(
                    "fuzz progress: {} lines, {} batches, {:.0} s, {:.0} lines/s, {} failures, peak \
                     RSS {:.1} MiB, RSS {:.1} MiB",
                    self.stats.lines,
                    self.stats.batches,
                    self.stats.elapsed.as_secs_f64(),
                    self.stats.lines as f64 / self.stats.elapsed.as_secs_f64(),
                    self.stats.failures(),
                    self.stats.peak_rss_kb as f64 / 1024.0,
                    self.stats.last_rss_kb as f64 / 1024.0,
                );
            }
        }
        self.finish();
        self.stats.elapsed = start.elapsed();
    }

    /// `quit` stops a running `go infinite` without a `bestmove`, and the engine exits.
    fn finish(&mut self) {
        let mut tail = Vec::new();
        self.feed(b"newgame kalah\ngo infinite\n".to_vec(), &mut tail);
        self.stats.gos -= 1;
        // The `go infinite` must not answer: quit stops it silently.
        self.queues[Q_BESTMOVE].clear();
        self.quitting = true;
        self.send(tail);
        let _ = self.pump(Instant::now() + Duration::from_millis(50), |_| false, false);
        self.send(b"quit\n".to_vec());
        let status = self.proc.wait_exit(QUIT_TIMEOUT);
        // Whatever it printed last.
        while let Ok(msg) = self.proc.msgs.recv_timeout(Duration::from_millis(200)) {
            self.on_msg(msg);
        }
        self.read_memory();
        match status {
            Some(s) if s.success() => {}
            Some(s) => self.fail(Fail::Quit, format!("after quit the engine exited with {s}")),
            None => self.fail(
                Fail::Quit,
                "the engine did not exit within 5 s of quit".into(),
            ),
        }
    }
}
