//! The checks of `sowfan check`, in the order they run (README.md, "Checking an engine",
//! documents each: what is sent and what counts as a pass).

use std::time::Duration;

use super::test_positions::Line;
use super::{Broken, Ctx, QUIET, QUIT_GRACE, SHOWN, Verdict, shorten};
use crate::client::is_bestmove;
use crate::client::process::{Failure, deadline_after};
use crate::client::spec::Proto;
use crate::game::Player;

/// One check: its number, its name in the result line, and what it does.
pub struct Check {
    pub id: u32,
    pub name: &'static str,
    pub(crate) run: fn(&mut Ctx) -> Result<Verdict, Broken>,
}

/// Every check, in order. Check 1 starts the engine; the others restart it when needed.
pub const CHECKS: &[Check] = &[
    Check {
        id: 1,
        name: "handshake",
        run: handshake,
    },
    Check {
        id: 2,
        name: "isready idle",
        run: isready_idle,
    },
    Check {
        id: 3,
        name: "setoption",
        run: setoption,
    },
    Check {
        id: 4,
        name: "new game",
        run: new_game,
    },
    Check {
        id: 5,
        name: "go depth, startpos",
        run: go_startpos,
    },
    Check {
        id: 6,
        name: "startpos moves",
        run: go_startpos_moves,
    },
    Check {
        id: 7,
        name: "fen moves",
        run: go_fen_moves,
    },
    Check {
        id: 8,
        name: "extra move pending",
        run: go_extra_move,
    },
    Check {
        id: 9,
        name: "go nodes",
        run: go_nodes,
    },
    Check {
        id: 10,
        name: "go movetime",
        run: go_movetime,
    },
    Check {
        id: 11,
        name: "go with clocks",
        run: go_clocks,
    },
    Check {
        id: 12,
        name: "go infinite + stop",
        run: go_infinite,
    },
    Check {
        id: 13,
        name: "one bestmove per go",
        run: one_bestmove_per_go,
    },
    Check {
        id: 14,
        name: "query during play",
        run: query_during_play,
    },
    Check {
        id: 15,
        name: "query at the end",
        run: query_at_the_end,
    },
    Check {
        id: 16,
        name: "bad lines",
        run: bad_lines,
    },
    Check {
        id: 17,
        name: "illegal move",
        run: illegal_move,
    },
    Check {
        id: 18,
        name: "quit",
        run: quit,
    },
];

/// Search limits of the `go` checks.
const DEPTH: u32 = 3;
const NODES: u64 = 1000;
const MOVETIME_MS: u64 = 200;
/// The clock of the side to move in check 11, and the other side's (an engine reading the
/// wrong clock thinks it has a minute).
const CLOCK_MS: u64 = 1000;
const OTHER_CLOCK_MS: u64 = 60_000;
const INC_MS: u64 = 10;
/// How long `go infinite` must run without a `bestmove` before `isready` and `stop`.
const INFINITE_MS: u64 = 300;
/// An option name no engine has.
const UNKNOWN_OPTION: &str = "SowfanCheckNoSuchOption";

/// An `option name <Name> type <type> [default <value>] …` line of the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineOption {
    pub name: String,
    pub kind: String,
    /// The first word after `default` (for `spin` and `check` options the whole default).
    pub default: Option<String>,
}

impl EngineOption {
    /// Read an option line; `None` when it is not one (or has no name or type).
    pub fn parse(line: &str) -> Option<EngineOption> {
        let rest = line.trim().strip_prefix("option name ")?;
        let words: Vec<&str> = rest.split_whitespace().collect();
        let type_at = words.iter().position(|&w| w == "type")?;
        if type_at == 0 {
            return None;
        }
        let name = words[..type_at].join(" ");
        let kind = words.get(type_at + 1)?.to_string();
        let default = words
            .iter()
            .position(|&w| w == "default")
            .and_then(|i| words.get(i + 1))
            .map(|w| w.to_string());
        Some(EngineOption {
            name,
            kind,
            default,
        })
    }
}

/// The option check 3 sets to its own default: `Hash` when the engine has it as a spin
/// option, else its first spin or check option with a default.
pub fn option_to_set(options: &[EngineOption]) -> Option<(&str, &str)> {
    let usable =
        |o: &&EngineOption| matches!(o.kind.as_str(), "spin" | "check") && o.default.is_some();
    let chosen = options
        .iter()
        .filter(usable)
        .find(|o| o.name.eq_ignore_ascii_case("Hash"))
        .or_else(|| options.iter().find(usable))?;
    Some((chosen.name.as_str(), chosen.default.as_deref()?))
}

/// Check 1: `ugi` (`uci` with proto=uci) answered by `ugiok`, with an `id name` line before it.
fn handshake(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    ctx.spawn()?;
    let hello = ctx.proto().hello();
    let handshake = match ctx.handshake() {
        Ok(handshake) => handshake,
        Err(broken) => {
            ctx.give_up("the handshake failed (check 1)");
            return Err(broken);
        }
    };
    ctx.latency("handshake", handshake.ms);
    if !handshake.ok {
        let got = ctx.last_got.clone();
        ctx.give_up("the handshake failed (check 1)");
        return Ok(Verdict::fail(
            hello,
            got.as_deref(),
            format!(
                "no '{hello}ok' within {} ms ({} other lines)",
                ctx.timeout().as_millis(),
                handshake.other
            ),
        ));
    }
    ctx.send_options()?;
    let ok = format!("{hello}ok");
    let Some(name) = handshake.id_name else {
        return Ok(
            Verdict::fail(hello, Some(&ok), "no 'id name' line before it").with_ms(handshake.ms),
        );
    };
    Ok(
        Verdict::ok(hello, Some(&ok), Some(handshake.ms)).with_note(format!(
            "id name {}, {} options",
            shorten(&name, 30),
            handshake.options.len()
        )),
    )
}

/// Check 2: `isready` three times while idle, each answered by `readyok` (slowest shown).
fn isready_idle(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let mut slowest = 0;
    for _ in 0..3 {
        let synced = ctx.sync()?;
        if let Some(stray) = synced.stray {
            return Ok(Verdict::fail(
                "isready",
                Some(&stray),
                "a bestmove nobody asked for",
            ));
        }
        slowest = slowest.max(synced.ms);
    }
    ctx.latency("isready idle", slowest);
    Ok(Verdict::ok("isready", Some("readyok"), Some(slowest)).with_note("slowest of 3"))
}

/// Check 3: One of the engine's own options set to its own default, then an unknown option;
/// `readyok` after each, and no `info string error` for the engine's own option.
fn setoption(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let own = option_to_set(&ctx.options).map(|(n, v)| (n.to_string(), v.to_string()));
    let mut sent = Vec::new();
    let mut notes = Vec::new();
    if let Some((name, value)) = &own {
        let line = format!("setoption name {name} value {value}");
        ctx.send(&line)?;
        sent.push(line.clone());
        let synced = ctx.sync()?;
        if let Some(error) = synced.starting("info string error").first() {
            return Ok(Verdict::fail(
                &line,
                Some(error),
                "the engine refused its own option at its default value",
            ));
        }
    } else {
        notes.push("the engine lists no spin or check option".to_string());
    }
    let unknown = format!("setoption name {UNKNOWN_OPTION} value 1");
    ctx.send(&unknown)?;
    sent.push(unknown);
    let synced = ctx.sync()?;
    match synced.starting("info string").first() {
        Some(said) => notes.push(format!("unknown option: '{}'", shorten(said, 50))),
        None => notes.push("unknown option ignored silently".to_string()),
    }
    Ok(
        Verdict::ok(&sent.join(" / "), Some("readyok"), Some(synced.ms))
            .with_note(notes.join("; ")),
    )
}

/// Check 4: A new game of `--game` (`newgame <game>` or the `setoption` way, then
/// `uginewgame`/`ucinewgame`): `readyok`, and no `info string error`.
fn new_game(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let lines = ctx.setup_lines();
    for line in &lines {
        ctx.send(line)?;
    }
    let sent = lines.join(" / ");
    let synced = ctx.sync()?;
    if let Some(error) = synced.starting("info string error").first() {
        return Ok(Verdict::fail(
            &sent,
            Some(error),
            "the engine refused the game",
        ));
    }
    Ok(Verdict::ok(&sent, Some("readyok"), Some(synced.ms)))
}

/// Check 5: `position startpos`, `go depth 1`: one legal `bestmove`.
fn go_startpos(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    ctx.go(&Line::start(), "go depth 1", None)
}

/// Check 6: `position startpos moves …` (12 random moves), `go depth 3`: one legal `bestmove`.
fn go_startpos_moves(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let line = ctx.positions.long.clone();
    ctx.go(&line, &format!("go depth {DEPTH}"), None)
}

/// Check 7: `position fen <position string> moves …` (a position reached by random play, and 3
/// moves after it), `go depth 3`: one legal `bestmove`.
fn go_fen_moves(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let Some(line) = ctx.positions.fen.clone() else {
        return Ok(Verdict::skip(
            "random play found no position string to send",
        ));
    };
    ctx.go(&line, &format!("go depth {DEPTH}"), None)
}

/// Check 8: A position in which the player who just moved moves again (Kalah's last seed in
/// the store), `go depth 3`: a legal move, so one by that player.
fn go_extra_move(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let Some(line) = ctx.positions.extra.clone() else {
        return Ok(Verdict::skip(
            "no position in which the player who just moved moves again, in 20 random games",
        ));
    };
    let mover = line
        .session(ctx.base.as_ref(), &[])
        .map(|s| s.to_move().name())
        .unwrap_or("?");
    let verdict = ctx.go(&line, &format!("go depth {DEPTH}"), None)?;
    if verdict.passed() {
        Ok(verdict.with_note(format!("{mover} moved and moves again")))
    } else {
        Ok(verdict)
    }
}

/// Check 9: `go nodes 1000` in a mid-game position: one legal `bestmove`.
fn go_nodes(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let line = ctx.positions.mid.clone();
    ctx.go(&line, &format!("go nodes {NODES}"), None)
}

/// Check 10: `go movetime 200`: one legal `bestmove` within 200 ms plus the engine's
/// `timemargin` (100 ms by default).
fn go_movetime(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let line = ctx.positions.mid.clone();
    let allowed = Duration::from_millis(MOVETIME_MS).saturating_add(ctx.config.engine.timemargin);
    let verdict = ctx.go(&line, &format!("go movetime {MOVETIME_MS}"), Some(allowed))?;
    if let (true, Some(ms)) = (verdict.passed(), verdict.ms) {
        ctx.latency(&format!("go movetime {MOVETIME_MS}:"), ms);
    }
    Ok(verdict)
}

/// The `go` of check 11: the side to move has [`CLOCK_MS`], the other side a minute.
fn clock_go(proto: Proto, to_move: Player) -> String {
    let (p1, p2) = match to_move {
        Player::P1 => (CLOCK_MS, OTHER_CLOCK_MS),
        Player::P2 => (OTHER_CLOCK_MS, CLOCK_MS),
    };
    let ([t1, t2], [i1, i2]) = proto.clock_words();
    format!("go {t1} {p1} {t2} {p2} {i1} {INC_MS} {i2} {INC_MS}")
}

/// Check 11: Clocks: at the start (p1 to move) with p1 short of time and p2 with a minute, then
/// with p2 to move and the clocks the other way round: each a legal `bestmove` within the
/// mover's clock plus the `timemargin` (an engine reading the wrong clock takes too long).
fn go_clocks(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let allowed = Duration::from_millis(CLOCK_MS).saturating_add(ctx.config.engine.timemargin);
    let proto = ctx.proto();
    let mut cases = vec![(Line::start(), Player::P1)];
    if let Some(line) = ctx.positions.p2_to_move.clone() {
        cases.push((line, Player::P2));
    }
    let mut answers = Vec::new();
    let mut slowest = 0;
    let mut shown = Vec::new();
    for (line, to_move) in &cases {
        let go = clock_go(proto, *to_move);
        let verdict = ctx.go(line, &go, Some(allowed))?;
        if !verdict.passed() {
            return Ok(verdict);
        }
        slowest = slowest.max(verdict.ms.unwrap_or_default());
        answers.push(verdict.got.unwrap_or_default());
        shown.push(go);
    }
    ctx.latency("go with a 1 s clock:", slowest);
    let note = if cases.len() < 2 {
        "no position with p2 to move found: p1's clock only"
    } else {
        "p1 to move, then p2; slowest shown"
    };
    Ok(Verdict::ok(
        &shown.join(" / "),
        Some(&answers.join(" / ")),
        Some(slowest),
    )
    .with_note(note))
}

/// Check 12: `go infinite`: no `bestmove` for 300 ms; `isready` answered during the search;
/// `stop` answered by one legal `bestmove`.
fn go_infinite(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let line = ctx.positions.mid.clone();
    let shown = "go infinite / isready / stop";
    ctx.send(&line.command())?;
    let synced = ctx.sync()?;
    if let Some(stray) = synced.stray {
        return Ok(Verdict::fail(shown, Some(&stray), "a bestmove before 'go'"));
    }
    ctx.send("go infinite")?;
    ctx.answers.push((ctx.current, 0));
    // Any bestmove before `stop` is wrong; the search must also survive `isready`.
    let early = |ctx: &mut Ctx, text: &str| {
        ctx.count_bestmove();
        ctx.needs_restart = true;
        Ok(Verdict::fail(
            shown,
            Some(text),
            "a bestmove before 'stop' under go infinite",
        ))
    };
    let until = deadline_after(Duration::from_millis(INFINITE_MS));
    while let Some((text, _)) = ctx.recv(until, "nothing (searching)")? {
        if is_bestmove(&text) {
            return early(ctx, &text);
        }
    }
    let asked = ctx.send("isready")?;
    let deadline = deadline_after(ctx.timeout());
    let mut ready_ms = None;
    while let Some((text, at)) = ctx.recv(deadline, "readyok while searching")? {
        if text.trim() == "readyok" {
            ready_ms = Some(at.saturating_duration_since(asked).as_millis());
            break;
        }
        if is_bestmove(&text) {
            return early(ctx, &text);
        }
    }
    if let Some(ms) = ready_ms {
        ctx.latency("isready while searching", ms);
    }
    let stopped = ctx.send("stop")?;
    let deadline = deadline_after(ctx.timeout());
    let (answer, at) = loop {
        match ctx.recv(deadline, "bestmove after stop")? {
            Some((text, at)) if is_bestmove(&text) => break (text, at),
            Some(_) => {}
            None => {
                ctx.needs_restart = true;
                let got = ctx.last_got.clone();
                let mut why = format!(
                    "no bestmove within {} ms after stop",
                    ctx.timeout().as_millis()
                );
                if ready_ms.is_none() {
                    why.push_str("; no readyok while searching either");
                }
                return Ok(Verdict::fail(shown, got.as_deref(), why));
            }
        }
    };
    ctx.count_bestmove();
    let stop_ms = at.saturating_duration_since(stopped).as_millis();
    ctx.latency("stop", stop_ms);
    let second = ctx.quiet()?;
    let verdict = ctx.referee(&line, shown, &answer, second.as_deref())?;
    let Some(ready_ms) = ready_ms else {
        return Ok(Verdict::fail(
            shown,
            Some(&answer),
            format!(
                "no readyok within {} ms while searching",
                ctx.timeout().as_millis()
            ),
        ));
    };
    if !verdict.passed() {
        return Ok(verdict.with_ms(stop_ms));
    }
    Ok(verdict.with_ms(stop_ms).with_note(format!(
        "readyok while searching in {ready_ms} ms; time is stop's"
    )))
}

/// Check 13: Every `go` of checks 5-12 was answered by exactly one `bestmove`: none missing,
/// none twice (the checker listens for 150 ms after each, and counts stray ones later).
fn one_bestmove_per_go(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let gos = ctx.answers.len();
    let wrong: Vec<String> = ctx
        .answers
        .iter()
        .filter(|(_, n)| *n != 1)
        .map(|(id, n)| format!("check {id}: {n}"))
        .collect();
    let sent = format!("{gos} go");
    if gos == 0 {
        return Ok(Verdict::fail(&sent, None, "no go was sent"));
    }
    if !wrong.is_empty() {
        return Ok(Verdict::fail(
            &sent,
            None,
            format!("bestmove lines per go: {}", wrong.join(", ")),
        ));
    }
    Ok(
        Verdict::ok(&sent, Some(&format!("{gos} bestmove")), None).with_note(format!(
            "none missing, none twice; {} ms listened after each",
            QUIET.as_millis()
        )),
    )
}

/// The three queries in `line`, compared with the rules: `Ok(Ok((answers, ms)))` when they
/// agree, `Ok(Err(verdict))` when not.
fn queries(
    ctx: &mut Ctx,
    line: &Line,
    label: &str,
) -> Result<Result<(String, u128), Verdict>, Broken> {
    let shown = format!(
        "{} / query p1turn|gameover|result",
        shorten(&line.command(), 30)
    );
    let referee = match line.session(ctx.base.as_ref(), &[]) {
        Ok(session) => session,
        Err(e) => {
            return Ok(Err(Verdict::skip(format!(
                "the rules reject the position: {e}"
            ))));
        }
    };
    let outcome = referee.outcome();
    let expected = [
        (referee.to_move() == Player::P1).to_string(),
        outcome.is_some().to_string(),
        outcome
            .map(|o| o.result.as_str())
            .unwrap_or("none")
            .to_string(),
    ];
    ctx.send(&line.command())?;
    let sent = ctx.send("query p1turn")?;
    ctx.send("query gameover")?;
    ctx.send("query result")?;
    let synced = ctx.sync()?;
    let ms = sent.elapsed().as_millis();
    let responses: Vec<String> = synced
        .starting("response")
        .iter()
        .map(|l| {
            l.trim_start()
                .trim_start_matches("response")
                .trim()
                .to_string()
        })
        .collect();
    let got = responses.join(" ");
    if responses.len() != 3 {
        return Ok(Err(Verdict::fail(
            &shown,
            Some(&got),
            format!(
                "{label}: expected 3 'response' lines before readyok, got {}",
                responses.len()
            ),
        )));
    }
    for ((query, answer), want) in ["p1turn", "gameover", "result"]
        .iter()
        .zip(&responses)
        .zip(&expected)
    {
        if answer != want {
            return Ok(Err(Verdict::fail(
                &shown,
                Some(&got),
                format!("{label}: query {query} answered '{answer}', the rules say '{want}'"),
            )));
        }
    }
    Ok(Ok((got, ms)))
}

/// Check 14: `query p1turn`, `query gameover`, `query result` at the start and after a few
/// random moves, then `isready`: the three answers come before `readyok` and agree with
/// the rules.
fn query_during_play(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let mid = ctx.positions.mid.clone();
    let mut got = Vec::new();
    let mut slowest = 0;
    for (line, label) in [(Line::start(), "at the start"), (mid, "mid-game")] {
        match queries(ctx, &line, label)? {
            Ok((answers, ms)) => {
                got.push(answers);
                slowest = slowest.max(ms);
            }
            Err(verdict) => return Ok(verdict),
        }
    }
    Ok(Verdict::ok(
        "query p1turn|gameover|result",
        Some(&got.join(" / ")),
        Some(slowest),
    )
    .with_note("at the start, then mid-game"))
}

/// Check 15: The same queries after a random game played to its end.
fn query_at_the_end(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let Some(line) = ctx.positions.finished.clone() else {
        return Ok(Verdict::skip("no random game ended within 2000 moves"));
    };
    let plies = line.moves.len();
    match queries(ctx, &line, "at the end")? {
        Ok((answers, ms)) => Ok(Verdict::ok(
            &format!("position startpos moves ({plies} moves) / query …"),
            Some(&answers),
            Some(ms),
        )),
        Err(verdict) => Ok(verdict),
    }
}

/// Check 16: Garbage: `xyzzy 123`, a line that is not UTF-8, an empty line; then `readyok`.
fn bad_lines(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    ctx.send("xyzzy 123")?;
    ctx.send_bytes(b"\xff\xfe\x80 \xc3\x28 sowfan-check")?;
    ctx.send("")?;
    let synced = ctx.sync()?;
    let shown = "xyzzy 123 / <not UTF-8> / <empty>";
    if let Some(stray) = synced.stray {
        return Ok(Verdict::fail(
            shown,
            Some(&stray),
            "a bestmove nobody asked for",
        ));
    }
    let said = synced.starting("info string");
    let note = match said.first() {
        Some(first) => format!(
            "{} info string lines, first '{}'",
            said.len(),
            shorten(first, 40)
        ),
        None => "ignored silently".to_string(),
    };
    Ok(Verdict::ok(shown, Some("readyok"), Some(synced.ms)).with_note(note))
}

/// Check 17: `position … moves …` with an illegal last move: the engine stays alive, answers
/// `isready`, and then plays a legal move from the start (`go depth 1`).
fn illegal_move(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let illegal = ctx.positions.illegal.clone();
    let mut line = illegal.before.clone();
    line.moves.push(illegal.mv.clone());
    let command = line.command();
    ctx.send(&command)?;
    let synced = ctx.sync()?;
    let said = synced
        .starting("info string")
        .first()
        .map(|s| format!("engine said '{}'", shorten(s, 50)))
        .unwrap_or_else(|| "no info string".to_string());
    let after = ctx.go(&Line::start(), "go depth 1", None)?;
    if !after.passed() {
        return Ok(Verdict::fail(
            &command,
            after.got.as_deref(),
            format!("after it, position startpos / go depth 1: {}", after.note),
        ));
    }
    Ok(
        Verdict::ok(&command, Some("readyok"), Some(synced.ms)).with_note(format!(
            "'{}' is illegal; {said}; then {}",
            illegal.mv,
            after.got.as_deref().unwrap_or_default()
        )),
    )
}

/// Check 18: `quit`: the process exits within 1 s.
fn quit(ctx: &mut Ctx) -> Result<Verdict, Broken> {
    let Some(engine) = ctx.engine.take() else {
        return Err(Broken {
            failure: Failure::Crashed("no engine process".to_string()),
            waiting: "an engine".to_string(),
        });
    };
    match engine.quit_timed(QUIT_GRACE) {
        Ok((took, how)) => {
            let ms = took.as_millis();
            ctx.latency("quit", ms);
            Ok(Verdict::ok("quit", Some(&how), Some(ms)))
        }
        Err(why) => Ok(Verdict::fail(
            "quit",
            None,
            shorten(&why.to_string(), SHOWN * 2),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lines_are_read() {
        let hash = EngineOption::parse("option name Hash type spin default 16 min 1 max 512");
        assert_eq!(
            hash,
            Some(EngineOption {
                name: "Hash".to_string(),
                kind: "spin".to_string(),
                default: Some("16".to_string()),
            })
        );
        let spaced = EngineOption::parse("option name Move Overhead type spin default 30").unwrap();
        assert_eq!(spaced.name, "Move Overhead");
        let button = EngineOption::parse("option name Clear Hash type button").unwrap();
        assert_eq!((button.kind.as_str(), button.default), ("button", None));
        assert_eq!(EngineOption::parse("option name type spin"), None);
        assert_eq!(EngineOption::parse("option name Hash"), None);
        assert_eq!(EngineOption::parse("id name Hash type spin"), None);
        assert_eq!(EngineOption::parse("option name X type"), None);
    }

    #[test]
    fn check_3_prefers_hash_then_any_spin_or_check_option() {
        let parse = |lines: &[&str]| -> Vec<EngineOption> {
            lines
                .iter()
                .filter_map(|l| EngineOption::parse(l))
                .collect()
        };
        let sowfan = parse(&[
            "option name Threads type spin default 1 min 1 max 8",
            "option name Hash type spin default 16 min 1 max 512",
        ]);
        assert_eq!(option_to_set(&sowfan), Some(("Hash", "16")));
        let other = parse(&[
            "option name Clear Hash type button",
            "option name Ponder type check default false",
        ]);
        assert_eq!(option_to_set(&other), Some(("Ponder", "false")));
        let none = parse(&["option name Name type string default x"]);
        assert_eq!(option_to_set(&none), None);
    }

    #[test]
    fn clock_gos_give_the_mover_the_short_clock_in_the_engines_protocol() {
        assert_eq!(
            clock_go(Proto::Ugi, Player::P1),
            "go p1time 1000 p2time 60000 p1inc 10 p2inc 10"
        );
        assert_eq!(
            clock_go(Proto::Uci, Player::P2),
            "go wtime 60000 btime 1000 winc 10 binc 10"
        );
    }

    #[test]
    fn checks_are_numbered_in_order() {
        for (i, check) in CHECKS.iter().enumerate() {
            assert_eq!(check.id as usize, i + 1, "{}", check.name);
        }
    }
}
