package sowfan.ludii;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The plug-in's classes that need no Ludii (Engine, EngineSupply, Chain, KalahRules,
 * FanoronaRules), tested
 * with a plain JDK: `unit-test.sh`, run by `cargo test` (tests/it/ludii_plugin.rs) with the
 * sowfan just built as SOWFAN_PATH. Prints one line a check and exits 1 on a failure.
 */
public final class PluginTests {
    private static int failures;
    private static int checks;

    private PluginTests() {}

    public static void main(final String[] args) throws Exception {
        kalahRulesFromGames();
        kalahRulesRefuseOthers();
        engineThatNeverAnswers();
        engineThatIgnoresTermination();
        programNotFound();
        supplyStartsAMuteEngineOnce();
        realEngine();
        chains();
        fanoronaRules();
        System.out.println(checks - failures + " passed, " + failures + " failed");
        System.exit(failures == 0 ? 0 : 1);
    }

    private static void check(final boolean ok, final String what) {
        checks++;
        if (!ok) {
            failures++;
        }
        System.out.println((ok ? "ok   " : "FAIL ") + what);
    }

    // ------------------------------------------------------------------------------------------
    // KalahRules: a second, plainly written Kalah plays random games under each rule set, as
    // Ludii's compiled game would; the inference must find that rule set and only it.

    /** Kalah as the rules text says, on the board of pits A.. (0..n-1) and a.. (0..n-1) a side. */
    private static final class ReferenceKalah {
        final int n;
        final boolean emptyCapture;
        final boolean onMove;
        final boolean owner;
        /** The stores are the pits' rows' ends: south[n], north[n]. */
        final int[] south;
        final int[] north;
        int mover; // 0 South, 1 North
        boolean over;

        ReferenceKalah(final int n, final int seeds, final KalahRules rules) {
            this.n = n;
            this.emptyCapture = rules.emptyCapture;
            this.onMove = rules.endOnMove;
            this.owner = rules.leftoversOwner;
            south = new int[n + 1];
            north = new int[n + 1];
            Arrays.fill(south, 0, n, seeds);
            Arrays.fill(north, 0, n, seeds);
        }

        int[] layout() {
            final int[] board = new int[2 * n + 2];
            System.arraycopy(south, 0, board, 0, n + 1);
            System.arraycopy(north, 0, board, n + 1, n + 1);
            return board;
        }

        int rowSeeds(final int side) {
            int sum = 0;
            for (int i = 0; i < n; i++) {
                sum += side == 0 ? south[i] : north[i];
            }
            return sum;
        }

        int score(final int side) {
            return (side == 0 ? south[n] : north[n]) + (owner ? rowSeeds(side) : 0);
        }

        /** Sows pit {@code pit} (0-based in the mover's row), Ludii's way for these rules. */
        void sow(final int pit) {
            final int[][] rows = {south, north};
            int side = mover;
            int at = pit;
            int seeds = rows[side][at];
            rows[side][at] = 0;
            while (seeds > 0) {
                at++;
                if (at == n + 1 || (at == n && side != mover)) {
                    side = 1 - side; // past a store, or the opponent's store is skipped
                    at = 0;
                }
                rows[side][at]++;
                seeds--;
            }
            final boolean intoStore = side == mover && at == n;
            if (!intoStore && side == mover && rows[side][at] == 1) {
                final int facing = n - 1 - at;
                final int[] other = rows[1 - mover];
                if (other[facing] > 0 || emptyCapture) {
                    rows[mover][n] += other[facing] + 1;
                    other[facing] = 0;
                    rows[mover][at] = 0;
                }
            }
            if (!intoStore) {
                mover = 1 - mover;
            }
            if (!onMove && (rowSeeds(0) == 0 || rowSeeds(1) == 0)) {
                over = true;
            }
        }
    }

    private static List<KalahRules.Observation> randomGames(final int n, final int seeds,
            final KalahRules rules, final int games, final long seed) {
        final List<KalahRules.Observation> seen = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(seed);
        for (int g = 0; g < games; g++) {
            final ReferenceKalah game = new ReferenceKalah(n, seeds, rules);
            while (!game.over) {
                final int[] before = game.layout();
                final int mover = game.mover;
                final int[] row = mover == 0 ? game.south : game.north;
                final List<Integer> pits = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (row[i] > 0) {
                        pits.add(i);
                    }
                }
                if (pits.isEmpty()) {
                    // Under end=on-move Ludii's player without seeds passes, and the game ends.
                    game.over = true;
                    seen.add(new KalahRules.Observation(before, mover, -1, before, mover, true,
                            game.score(0), game.score(1)));
                    break;
                }
                final int pit = pits.get(random.nextInt(pits.size()));
                game.sow(pit);
                seen.add(new KalahRules.Observation(before, mover, mover == 0 ? pit : n + 1 + pit,
                        game.layout(), game.mover, game.over, game.over ? game.score(0) : 0,
                        game.over ? game.score(1) : 0));
            }
        }
        return seen;
    }

    private static void kalahRulesFromGames() {
        for (final int[] board : new int[][] {{6, 4}, {4, 3}, {6, 6}}) {
            for (final KalahRules truth : KalahRules.all()) {
                final KalahRules.Inference inference = new KalahRules.Inference(board[0]);
                for (final KalahRules.Observation o : randomGames(board[0], board[1], truth, 200, 7)) {
                    inference.observe(o);
                }
                final List<KalahRules> left = inference.candidates();
                check(left.size() == 1 && left.get(0).options().equals(truth.options()),
                        "Kalah(" + board[0] + "," + board[1] + ") played by " + truth + ": 200 random games leave "
                        + left);
            }
        }
    }

    private static void kalahRulesRefuseOthers() {
        // Ludii's rules, but a capture takes only the opposite pit's seeds (the sown seed stays):
        // no sowfan rule set, so nothing may be left.
        final KalahRules ludii = new KalahRules(false, true, true);
        final List<KalahRules.Observation> games = randomGames(6, 4, ludii, 200, 11);
        final KalahRules.Inference inference = new KalahRules.Inference(6);
        int changed = 0;
        for (final KalahRules.Observation o : games) {
            final int[] after = o.after.clone();
            final int[] before = o.before;
            // Find the captures (a pit of the mover emptied by more than the sowing) and leave the
            // last seed where it fell.
            final int store = o.mover == 0 ? 6 : 13;
            if (o.pit >= 0 && after[store] >= before[store] + 2 && !o.over) {
                for (int i = 0; i < 14; i++) {
                    if (i != store && i != 6 - store + 7 && after[i] == 0 && before[i] == 0
                            && (o.mover == 0 ? i < 6 : i > 6)) {
                        after[i] = 1;
                        after[store] -= 1;
                        changed++;
                        break;
                    }
                }
            }
            inference.observe(new KalahRules.Observation(before, o.mover, o.pit, after, o.nextMover, o.over,
                    o.southScore, o.northScore));
        }
        check(changed > 0 && inference.candidates().isEmpty() && !inference.lastReason().isEmpty(),
                "a Kalah that leaves the capturing seed in its pit fits none of sowfan's rule sets ("
                + changed + " captures changed; " + inference.lastReason() + ")");
        final KalahRules.Inference wrongMover = new KalahRules.Inference(6);
        final int[] start = {4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0};
        wrongMover.observe(new KalahRules.Observation(start, 0, 8, start, 1, false, 0, 0));
        check(wrongMover.candidates().isEmpty(), "South sowing from North's row fits no rule set");
    }

    // ------------------------------------------------------------------------------------------
    // Engine and EngineSupply against programs that misbehave

    private static File script(final String name, final String body) throws IOException {
        final File dir = Files.createTempDirectory("sowfan-plugin-test").toFile();
        dir.deleteOnExit();
        final File file = new File(dir, name);
        Files.write(file.toPath(), ("#!/bin/sh\n" + body + "\n").getBytes(StandardCharsets.UTF_8));
        if (!file.setExecutable(true)) {
            throw new IOException("cannot make " + file + " executable");
        }
        file.deleteOnExit();
        return file;
    }

    private static long children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
    }

    private static final Engine.Log QUIET = text -> { };

    private static void engineThatNeverAnswers() throws IOException {
        final File mute = script("mute", "while read -r line; do :; done");
        final long before = children();
        final long t0 = System.nanoTime();
        String message = null;
        try {
            Engine.start(Collections.singletonList(mute.getPath()), new ArrayList<>(), QUIET, 500).quit();
        } catch (final Engine.EngineException e) {
            message = e.getMessage();
        }
        final double seconds = (System.nanoTime() - t0) / 1e9;
        check(message != null && message.contains("said nothing for") && message.contains("has been ended"),
                "an engine that never answers is refused after the start-up wait: " + message);
        check(seconds < 4.5, String.format("within the wait and the time to end it (%.1f s)", seconds));
        check(children() == before, "and it is not left running");
    }

    private static void engineThatIgnoresTermination() throws IOException {
        final File stubborn = script("stubborn", "trap '' TERM\nwhile read -r line; do :; done");
        final long before = children();
        try {
            Engine.start(Collections.singletonList(stubborn.getPath()), new ArrayList<>(), QUIET, 300).quit();
        } catch (final Engine.EngineException e) {
            // expected
        }
        check(children() == before, "an engine that ignores SIGTERM is killed all the same");
    }

    private static void programNotFound() throws IOException {
        final String saved = System.getProperty("sowfan.path");
        System.setProperty("sowfan.path", "/nonexistent/sowfan");
        String message = null;
        try {
            Engine.locate();
        } catch (final Engine.EngineException e) {
            message = e.getMessage();
        }
        check(message != null && message.startsWith("sowfan not found: -Dsowfan.path is '/nonexistent/sowfan'"),
                "a -Dsowfan.path that is not there is named: " + message);
        check(EngineSupply.problem() != null && EngineSupply.problem().contains("not found"),
                "EngineSupply.problem() says so before any start: " + EngineSupply.problem());
        final int attempts = EngineSupply.attempts();
        try {
            EngineSupply.start(QUIET);
            check(false, "EngineSupply.start refuses a missing program");
        } catch (final Engine.EngineException e) {
            check(EngineSupply.attempts() == attempts, "a missing program is not started: " + e.getMessage());
        }
        final File plain = File.createTempFile("not-executable", ".txt");
        plain.deleteOnExit();
        System.setProperty("sowfan.path", plain.getPath());
        message = null;
        try {
            Engine.locate();
        } catch (final Engine.EngineException e) {
            message = e.getMessage();
        }
        check(message != null && message.contains("may not be executed"), "a file that may not be executed: " + message);
        restore(saved);
    }

    private static void supplyStartsAMuteEngineOnce() throws IOException {
        final String saved = System.getProperty("sowfan.path");
        final File mute = script("mute-supplied", "while read -r line; do :; done");
        System.setProperty("sowfan.path", mute.getPath());
        EngineSupply.forget();
        check(EngineSupply.problem() == null, "a program not tried yet is not known to fail");
        final int attempts = EngineSupply.attempts();
        for (int move = 1; move <= 3; move++) {
            final long t0 = System.nanoTime();
            try {
                EngineSupply.start(QUIET, 400).quit();
            } catch (final Engine.EngineException e) {
                // expected: it never answers
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            if (move > 1) {
                check(seconds < 0.2, String.format("move %d: the failed program is not started again (%.3f s)",
                        move, seconds));
            }
        }
        check(EngineSupply.attempts() == attempts + 1, "three moves, one start ("
                + (EngineSupply.attempts() - attempts) + ")");
        check(EngineSupply.problem() != null && EngineSupply.problem().contains("said nothing"),
                "its failure is what problem() says: " + EngineSupply.problem());
        Files.write(mute.toPath(), "#!/bin/sh\n# changed\nwhile read -r line; do :; done\n".getBytes(StandardCharsets.UTF_8));
        check(EngineSupply.problem() == null, "a program changed since its failure is tried again");
        restore(saved);
        EngineSupply.forget();
    }

    private static void restore(final String saved) {
        if (saved == null) {
            System.clearProperty("sowfan.path");
        } else {
            System.setProperty("sowfan.path", saved);
        }
    }

    private static void realEngine() {
        final String program = System.getenv("SOWFAN_PATH");
        if (program == null) {
            check(false, "SOWFAN_PATH names the sowfan to test with");
            return;
        }
        final long before = children();
        try {
            final Engine engine = Engine.start(Collections.singletonList(program), new ArrayList<>(), QUIET);
            engine.commands("newgame kalah pits=6 seeds=4");
            engine.commands("position fen 4,4,4,4,4,4,0/4,4,4,4,4,4,0 S");
            final String best = engine.bestMove("depth 4", 10_000);
            check(best.length() == 1 && best.charAt(0) >= 'A' && best.charAt(0) <= 'F',
                    "sowfan answers a South pit at the start: " + best);
            final Engine.Position after = engine.position("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S", "C");
            check(after.fen.equals("4,4,0,5,5,5,1/4,4,4,4,4,4,0 S") && after.result == null,
                    "C from the start reaches '4,4,0,5,5,5,1/4,4,4,4,4,4,0 S' (extra move): " + after.fen);
            String error = null;
            try {
                engine.commands("position fen 4,4,4/ S");
            } catch (final Engine.EngineException e) {
                error = e.getMessage();
            }
            check(error != null && error.startsWith("info string error"), "a bad position is an error: " + error);
            engine.quit();
            check(children() == before, "quit ends the process");
        } catch (final Engine.EngineException e) {
            check(false, "the real engine: " + e.getMessage());
        }
    }

    private static void chains() {
        final Chain chain = Chain.parse("d4-d3A-c3W");
        check(chain.steps() == 2 && chain.prefix(1).equals("d4-d3A") && chain.points.get(2)[0] == 2
                && chain.points.get(2)[1] == 2, "d4-d3A-c3W: two steps, the first is d4-d3A, the last ends on c3");
        for (final String bad : new String[] {"d4", "d4-d3-c3W", "4d-d3", "d4-dx"}) {
            boolean refused = false;
            try {
                Chain.parse(bad);
            } catch (final IllegalArgumentException e) {
                refused = true;
            }
            check(refused, "'" + bad + "' is refused");
        }
    }

    // ------------------------------------------------------------------------------------------
    // FanoronaRules: hand-made decisions in the middle of a chain, as Ludii's game would show
    // them, and the option it gives played by the real engine.

    /** A 9x5 board with White's (1) stones and Black's (2) on the named points. */
    private static int[][] tsivy(final String white, final String black) {
        final int[][] board = new int[9][5];
        for (final String p : white.split(" ")) {
            board[p.charAt(0) - 'a'][p.charAt(1) - '1'] = 1;
        }
        for (final String p : black.split(" ")) {
            board[p.charAt(0) - 'a'][p.charAt(1) - '1'] = 2;
        }
        return board;
    }

    private static int[][] points(final String names) {
        final String[] parts = names.isEmpty() ? new String[0] : names.split(" ");
        final int[][] out = new int[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            out[i] = new int[] {parts[i].charAt(0) - 'a', parts[i].charAt(1) - '1'};
        }
        return out;
    }

    private static void fanoronaRules() {
        check(!FanoronaRules.possible(3, 3) && FanoronaRules.possible(5, 5) && FanoronaRules.possible(9, 5),
                "a straight-on capture needs five points on a line: not on Telo's board, on Dimy's and Tsivy's");
        // White withdrew c3-d3 (taking b3); d3-e3 would take f3 by approach, straight on.
        final int[][] board = tsivy("d3", "f3 d5");
        final int[][] visited = points("c3 d3");
        FanoronaRules offered = new FanoronaRules(9, 5);
        check(offered.allowed() == Boolean.FALSE && offered.option().isEmpty(),
                "nothing seen: the traditional rule, no option");
        check(offered.observe(board, 1, visited, points("e3 d4")) && offered.chances() == 1,
                "d3-e3 after c3-d3 with f3 black is a chance of a straight-on capture");
        check(offered.allowed() == Boolean.TRUE && offered.option().equals("same-direction=allowed"),
                "Ludii offering it: same-direction=allowed (" + offered.evidence() + ")");
        final FanoronaRules withheld = new FanoronaRules(9, 5);
        withheld.observe(board, 1, visited, points("d4"));
        check(withheld.allowed() == Boolean.FALSE && withheld.option().isEmpty(),
                "Ludii not offering it: the traditional rule (" + withheld.evidence() + ")");
        withheld.observe(board, 1, visited, points("e3"));
        check(withheld.allowed() == null, "offered once and withheld once: no rule of sowfan's");
        final FanoronaRules none = new FanoronaRules(9, 5);
        check(!none.observe(tsivy("d3", "e3 d5"), 1, visited, points("d4")),
                "no chance when the next point is taken");
        check(!none.observe(tsivy("d3 f3", "d5"), 1, visited, points("d4")),
                "no chance when the point beyond holds an own stone");
        check(!none.observe(tsivy("d3", "b3 d5"), 1, points("c3 d4 e3 d3"), points("c3")),
                "no chance when the next point was visited this turn");
        check(!none.observe(tsivy("h3", "d5"), 1, points("g3 h3"), points("")),
                "no chance at the edge (the point beyond is off the board)");
        check(!none.observe(tsivy("d3", "f3 d5"), 1, points("d3"), points("e3")),
                "no chance at a turn's first step");
        check(none.chances() == 0 && none.allowed() == Boolean.FALSE, "none counted");
        final String program = System.getenv("SOWFAN_PATH");
        if (program == null) {
            check(false, "SOWFAN_PATH names the sowfan to test with");
            return;
        }
        try {
            final Engine engine = Engine.start(Collections.singletonList(program), new ArrayList<>(), QUIET);
            final String fen = "3B5/9/1BW2B3/9/9 w 0";
            engine.commands("newgame fanorona repetition=off quiet-limit=off " + offered.option());
            final Engine.Position after = engine.position(fen, "c3-d3W-e3A");
            check(after.fen.equals("3B5/9/4W4/9/9 b 0"),
                    "sowfan with " + offered.option() + " plays c3-d3W-e3A: " + after.fen);
            engine.commands("newgame fanorona repetition=off quiet-limit=off " + withheld.option());
            String error = null;
            try {
                engine.position(fen, "c3-d3W-e3A");
            } catch (final Engine.EngineException e) {
                error = e.getMessage();
            }
            check(error != null && error.contains("same direction"),
                    "sowfan by default refuses c3-d3W-e3A: " + error);
            engine.quit();
        } catch (final Engine.EngineException e) {
            check(false, "the real engine with the Fanorona option: " + e.getMessage());
        }
    }
}
