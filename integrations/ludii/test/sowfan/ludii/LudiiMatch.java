package sowfan.ludii;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import game.Game;
import utils.AIFactory;
// Current Ludii's packages; harness.sh (run by test.sh) rewrites them for Ludii 1.0.x (see ludii-api.sh).
import other.AI;
import other.GameLoader;
import other.context.Context;
import other.move.Move;
import other.trial.Trial;

/**
 * The headless test of the sowfan AI (integrations/ludii/test.sh): complete games through
 * Ludii's own trial loop (the game's Model, {@code startNewStep}), sowfan against Ludii's
 * built-in AIs, both colours, for Kalah (4, 5, 6 seeds) and the three Fanorona boards.
 *
 * <p>Checks: every move returned by either AI passes Ludii's own legality check
 * ({@code Model.verifyMoveLegal}); every game ends by Ludii's rules within a wall-time limit;
 * and, as a referee, a second sowfan process replays every turn of both players and reports
 * each turn where its rules and Ludii's disagree (the board reached, or a step it rejects).
 * Prints one line a game and the scores; exits 1 on an illegal move, a hang, an engine
 * failure or a game without an end.
 */
public final class LudiiMatch {
    private static final String[] ALL = {"kalah-4", "kalah-5", "kalah-6", "fanorona-telo",
            "fanorona-dimy", "fanorona-tsivy", "afrika", "anywoli"};
    /** Where this folder's Afrika.lud and Anywoli.lud are (--lud-dir; test.sh gives it). */
    private static String ludDir = ".";

    private LudiiMatch() {}

    public static void main(final String[] args) throws Exception {
        int games = 10;
        double sowfanSeconds = 0.1;
        double ludiiSeconds = 0.2;
        long gameLimitSeconds = 900;
        List<String> which = Arrays.asList(ALL);
        List<String> opponents = Arrays.asList("Alpha-Beta", "UCT");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--games": games = Integer.parseInt(args[++i]); break;
                case "--sowfan-seconds": sowfanSeconds = Double.parseDouble(args[++i]); break;
                case "--ludii-seconds": ludiiSeconds = Double.parseDouble(args[++i]); break;
                case "--game-limit": gameLimitSeconds = Long.parseLong(args[++i]); break;
                case "--only": which = Arrays.asList(args[++i].split(",")); break;
                case "--opponents": opponents = Arrays.asList(args[++i].split(",")); break;
                case "--lud-dir": ludDir = args[++i]; break;
                default:
                    System.err.println("usage: LudiiMatch [--games N] [--sowfan-seconds S] "
                            + "[--ludii-seconds S] [--game-limit SECONDS] [--only "
                            + String.join(",", ALL) + "] [--opponents Alpha-Beta,UCT]");
                    System.exit(2);
            }
        }
        System.out.println("Ludii version " + main.Constants.LUDEME_VERSION);
        System.out.println("sowfan " + sowfanSeconds + " s a decision, Ludii's AIs "
                + ludiiSeconds + " s; " + games + " games per game and colour; opponents in turn: "
                + opponents);
        final int recognitionFailures = KalahRecognition.check(kalahText());
        final Referee referee = new Referee();
        final Map<String, int[]> table = new LinkedHashMap<>();
        boolean failed = false;
        final ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "game");
            t.setDaemon(true);
            return t;
        });
        for (final String name : which) {
            final Game game = load(name);
            System.out.println();
            System.out.println("== " + name + ": Ludii game '" + game.name() + "', sowfan maps it to '"
                    + describe(game) + "'");
            for (int sowfanPlayer = 1; sowfanPlayer <= 2; sowfanPlayer++) {
                for (int g = 0; g < games; g++) {
                    final String opponent = opponents.get(g % opponents.size());
                    final int sp = sowfanPlayer;
                    final double ss = sowfanSeconds;
                    final double ls = ludiiSeconds;
                    final Future<Outcome> future = runner.submit(
                            () -> play(game, sp, opponent, ss, ls, referee));
                    Outcome outcome;
                    try {
                        outcome = future.get(gameLimitSeconds, TimeUnit.SECONDS);
                    } catch (final TimeoutException e) {
                        System.out.println("HANG: " + name + " game " + (g + 1) + " did not end within "
                                + gameLimitSeconds + " s");
                        System.out.flush();
                        System.exit(1);
                        return;
                    }
                    final String colour = sowfanPlayer == 1 ? "P1" : "P2";
                    System.out.printf("%s game %2d sowfan=%s vs %-10s %-5s %s%n", name, g + 1, colour,
                            opponent, outcome.sowfanResult(sowfanPlayer), outcome.text);
                    System.out.flush();
                    failed |= outcome.failed;
                    final String key = name + " sowfan=" + colour + " vs " + opponent;
                    final int[] row = table.computeIfAbsent(key, k -> new int[6]);
                    final int r = !outcome.played ? 5
                            : outcome.winner == 0 ? 1 : outcome.winner == sowfanPlayer ? 0 : 2;
                    row[r]++;
                    row[3] += outcome.illegal;
                    row[4] += outcome.disagreements;
                }
            }
        }
        referee.close();
        // Every engine this run started has ended: the AIs' at each game's end, the referee's now.
        final long left = leftBehind();
        System.out.println("Processes left behind: " + left);
        failed |= left > 0;
        System.out.println();
        System.out.println("Scores (sowfan's wins-draws-losses), illegal moves, turns where the rules disagree, "
                + "games not played:");
        int sowfanWins = 0;
        int draws = 0;
        int losses = 0;
        int notPlayed = 0;
        for (final Map.Entry<String, int[]> e : table.entrySet()) {
            final int[] r = e.getValue();
            System.out.printf("  %-44s %2d-%d-%d  illegal %d  disagreements %d  not played %d%n", e.getKey(),
                    r[0], r[1], r[2], r[3], r[4], r[5]);
            sowfanWins += r[0];
            draws += r[1];
            losses += r[2];
            notPlayed += r[5];
        }
        failed |= recognitionFailures > 0;
        System.out.printf("Total: sowfan %d wins, %d draws, %d losses, %d games not played; %s%n", sowfanWins,
                draws, losses, notPlayed, failed ? "FAILED (see the lines above)"
                        : "every game ended by Ludii's rules, no illegal move, no hang");
        System.out.flush();
        System.exit(failed ? 1 : 0);
    }

    /** Processes this JVM started that still run, after a moment for them to exit. */
    private static long leftBehind() throws InterruptedException {
        long alive = 0;
        for (int wait = 0; wait < 30; wait++) {
            alive = ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
            if (alive == 0) {
                break;
            }
            Thread.sleep(100);
        }
        return alive;
    }

    // ------------------------------------------------------------------------------------------

    private static Game load(final String name) throws IOException {
        switch (name) {
            case "kalah-4":
                return GameLoader.loadGameFromName("Kalah.lud", new ArrayList<>());
            case "kalah-5":
            case "kalah-6":
                return kalahWithSeeds(name.charAt(name.length() - 1) - '0');
            case "fanorona-telo":
                return GameLoader.loadGameFromName("Fanorona.lud", Collections.singletonList("Version/Telo"));
            case "fanorona-dimy":
                return GameLoader.loadGameFromName("Fanorona.lud", Collections.singletonList("Version/Dimy"));
            case "fanorona-tsivy":
                return GameLoader.loadGameFromName("Fanorona.lud", Collections.singletonList("Version/Tsivy"));
            case "afrika":
                return GameLoader.loadGameFromFile(new File(ludDir, "Afrika.lud"), new ArrayList<>());
            case "anywoli":
                return GameLoader.loadGameFromFile(new File(ludDir, "Anywoli.lud"), new ArrayList<>());
            case "yit-nuri": // Anywoli.lud's other variants (not in the default list)
                return GameLoader.loadGameFromFile(new File(ludDir, "Anywoli.lud"),
                        Collections.singletonList("Variant/Yit Nuri"));
            case "yit-jani":
                return GameLoader.loadGameFromFile(new File(ludDir, "Anywoli.lud"),
                        Collections.singletonList("Variant/Yit Jani"));
            default:
                throw new IllegalArgumentException("unknown game '" + name + "' (" + String.join(", ", ALL) + ")");
        }
    }

    /**
     * Ludii's library has Kalah with 4 seeds only: this is its Kalah.lud with the start count
     * changed, every other rule as it is.
     */
    private static Game kalahWithSeeds(final int seeds) throws IOException {
        final String original = kalahText();
        final String changed = original.replace("(set Count 4 ", "(set Count " + seeds + " ");
        if (changed.equals(original)) {
            throw new IOException("Kalah.lud has no '(set Count 4 ' to change");
        }
        return loadText(changed, "kalah-" + seeds);
    }

    /** Ludii's own Kalah.lud, as its library has it. */
    static String kalahText() throws IOException {
        final InputStream in = GameLoader.class.getResourceAsStream("/lud/board/sow/two_rows/Kalah.lud");
        if (in == null) {
            throw new IOException("this Ludii has no /lud/board/sow/two_rows/Kalah.lud");
        }
        final StringBuilder text = new StringBuilder();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }

    /** A game compiled from a description's text (through a temporary file, as Ludii loads one). */
    static Game loadText(final String text, final String name) throws IOException {
        final File file = File.createTempFile(name + "-", ".lud");
        file.deleteOnExit();
        Files.write(file.toPath(), text.getBytes(StandardCharsets.UTF_8));
        return GameLoader.loadGameFromFile(file, new ArrayList<>());
    }

    private static String describe(final Game game) {
        final long start = System.nanoTime();
        final SowfanAI.Variant v = SowfanAI.Variant.of(game);
        final String took = String.format(" (recognised in %.0f ms)", (System.nanoTime() - start) / 1e6);
        if (v == null) {
            return "nothing (not supported)" + took;
        }
        if (v.sowing != null) {
            return v.sowing.newgame.substring("newgame ".length()) + took;
        }
        return (v.kalah ? "kalah pits=" + v.pits + " " + v.rules + " (seeds from the board)"
                        : v.fanoronaNewgame().substring("newgame ".length())) + took;
    }

    // ------------------------------------------------------------------------------------------

    /** What one game gave. */
    private static final class Outcome {
        boolean played = true;
        int winner;
        int illegal;
        int disagreements;
        boolean failed;
        String text;

        String sowfanResult(final int sowfanPlayer) {
            return !played ? "-" : winner == 0 ? "draw" : winner == sowfanPlayer ? "win" : "loss";
        }
    }

    /** Wraps an AI to check each move it returns with Ludii's own legality check. */
    private static final class Checked extends AI {
        final AI inner;
        final String label;
        int illegal;
        int decisions;
        double maxSeconds;
        Move last;

        Checked(final AI inner, final String label) {
            this.inner = inner;
            this.label = label;
        }

        @Override
        public void initAI(final Game game, final int playerID) {
            inner.initAI(game, playerID);
        }

        @Override
        public void closeAI() {
            inner.closeAI();
        }

        @Override
        public boolean supportsGame(final Game game) {
            return inner.supportsGame(game);
        }

        @Override
        public Move selectAction(final Game game, final Context context, final double maxSeconds,
                final int maxIterations, final int maxDepth) {
            final long start = System.nanoTime();
            final Move move = inner.selectAction(game, new Context(context), maxSeconds, maxIterations, maxDepth);
            this.maxSeconds = Math.max(this.maxSeconds, (System.nanoTime() - start) / 1e9);
            decisions++;
            if (move == null || !context.model().verifyMoveLegal(context, move)) {
                illegal++;
                System.out.println("ILLEGAL: " + label + " returned " + move + " in a position where Ludii's legal moves are "
                        + game.moves(context).moves());
            }
            last = move;
            return move;
        }
    }

    private static Outcome play(final Game game, final int sowfanPlayer, final String opponent,
            final double sowfanSeconds, final double ludiiSeconds, final Referee referee) {
        final Outcome outcome = new Outcome();
        final SowfanAI sowfanAI = new SowfanAI();
        final AI ludiiAI = AIFactory.createAI(opponent);
        if (!sowfanAI.supportsGame(game) || ludiiAI == null || !ludiiAI.supportsGame(game)) {
            outcome.failed = true;
            outcome.played = false;
            outcome.text = "not played: " + (ludiiAI == null ? opponent + " unknown" : "an AI does not support the game");
            return outcome;
        }
        final Checked sowfan = new Checked(sowfanAI, "sowfan");
        final Checked ludii = new Checked(ludiiAI, opponent);
        final List<AI> ais = new ArrayList<>(Arrays.asList(null, null, null));
        ais.set(sowfanPlayer, sowfan);
        ais.set(3 - sowfanPlayer, ludii);
        final double[] seconds = new double[3];
        seconds[sowfanPlayer] = sowfanSeconds;
        seconds[3 - sowfanPlayer] = ludiiSeconds;

        final int warningsBefore = SowfanAI.warnings();
        final Context context = new Context(game, new Trial(game));
        game.start(context);
        for (int p = 1; p <= 2; p++) {
            ais.get(p).initAI(game, p);
        }
        final SowfanAI.Variant variant = SowfanAI.Variant.of(game);
        final Referee.Check check = referee.begin(variant, context);
        final long start = System.currentTimeMillis();
        int decisions = 0;
        while (!context.trial().over()) {
            final int mover = context.state().mover();
            final Context before = new Context(context);
            context.model().startNewStep(context, ais, seconds);
            decisions++;
            final Checked who = mover == sowfanPlayer ? sowfan : ludii;
            check.step(before, who.last, context, who.label);
        }
        check.end(context);
        for (int p = 1; p <= 2; p++) {
            ais.get(p).closeAI();
        }
        outcome.winner = context.trial().status() == null ? 0 : context.trial().status().winner();
        outcome.illegal = sowfan.illegal + ludii.illegal;
        outcome.disagreements = check.disagreements;
        final int warnings = SowfanAI.warnings() - warningsBefore;
        outcome.failed = outcome.illegal > 0 || check.engineFailed;
        final StringBuilder text = new StringBuilder();
        text.append(String.format("Ludii: %s", outcome.winner == 0 ? "draw" : "P" + outcome.winner + " wins"));
        if (variant != null && (variant.kalah || variant.sowing != null)) {
            text.append(String.format(" %d-%d", context.score(1), context.score(2)));
        }
        text.append(String.format(", %d decisions in %.1f s (sowfan max %.2f s, %s max %.2f s), illegal %d, sowfan warnings %d, rule disagreements %d%s",
                decisions, (System.currentTimeMillis() - start) / 1000.0, sowfan.maxSeconds, opponent,
                ludii.maxSeconds, outcome.illegal, warnings, check.disagreements, check.endNote));
        outcome.text = text.toString();
        return outcome;
    }

    // ------------------------------------------------------------------------------------------

    /**
     * A second sowfan process that replays each turn by sowfan's rules and reports where they
     * and Ludii's differ. Works on whole turns: a Fanorona turn is the sequence of Ludii
     * decisions of one player, turned into sowfan's one-token chain.
     */
    static final class Referee {
        private Engine engine;
        private String currentGame;

        Referee() throws Engine.EngineException {
            final List<String> command = new ArrayList<>();
            command.add(Engine.programPath());
            engine = Engine.start(command, new ArrayList<>(), text -> { });
        }

        void close() {
            engine.quit();
        }

        Check begin(final SowfanAI.Variant variant, final Context context) {
            return new Check(variant, context);
        }

        /** One game's referee. */
        final class Check {
            final SowfanAI.Variant variant;
            int disagreements;
            boolean engineFailed;
            String endNote = "";
            /** Fanorona: the position string at the start of the current turn and its steps so far. */
            String turnFen;
            String turnMoves = "";
            int turnMover;
            boolean turnOpen;
            boolean turnBroken;
            /** Kalah: sowfan's game is over, Ludii's ends after one more (forced) Pass. */
            Engine.Position pendingEnd;

            Check(final SowfanAI.Variant variant, final Context context) {
                this.variant = variant;
                try {
                    final String newgame = variant.sowing != null ? variant.sowing.newgame
                            : variant.kalah
                            ? "newgame kalah pits=" + variant.pits + " seeds="
                              + variant.kalahTotalSeeds(context) / (2 * variant.pits) + " " + variant.rules
                            : variant.fanoronaNewgame();
                    if (!newgame.equals(currentGame)) {
                        engine.commands(newgame);
                        currentGame = newgame;
                    }
                } catch (final Engine.EngineException e) {
                    fail(e);
                }
            }

            private void fail(final Engine.EngineException e) {
                System.out.println("REFEREE FAILURE: " + e.getMessage());
                engineFailed = true;
            }

            private void disagree(final String text) {
                disagreements++;
                System.out.println("  rules disagree: " + text);
            }

            void step(final Context before, final Move move, final Context after, final String who) {
                if (engineFailed || move == null) {
                    return;
                }
                try {
                    if (variant.sowing != null) {
                        sowingStep(before, move, after, who);
                    } else if (variant.kalah) {
                        kalahStep(before, move, after, who);
                    } else {
                        fanoronaStep(before, move, after, who);
                    }
                } catch (final Engine.EngineException e) {
                    fail(e);
                }
            }

            /**
             * Kalah: one Ludii move is one sowfan move. When sowfan's game is over after a move
             * (the player to move has no seeds) and Ludii's is not, Ludii's next decision must be
             * that player's forced Pass, on which Ludii's game ends (see SowfanAI.Variant.kalah),
             * with the same scores.
             */
            private void kalahStep(final Context before, final Move move, final Context after, final String who)
                    throws Engine.EngineException {
                final String fen = variant.kalahFen(before);
                final boolean ludiiOver = after.trial().over();
                if (pendingEnd != null) {
                    final Engine.Position end = pendingEnd;
                    pendingEnd = null;
                    if (!move.isPass() || !ludiiOver) {
                        disagree("sowfan's game ended (" + end.result + ") but Ludii goes on with " + who
                                + "'s " + move + " in '" + fen + "'");
                    } else {
                        compareEnd(end, after);
                    }
                    return;
                }
                String letter = null;
                for (int i = 0; i < variant.pits; i++) {
                    if (variant.southPits[i] == move.from()) {
                        letter = String.valueOf((char) ('A' + i));
                    }
                    if (variant.northPits[i] == move.from()) {
                        letter = String.valueOf((char) ('a' + i));
                    }
                }
                if (letter == null || move.isPass()) {
                    disagree(who + " played " + move + " in '" + fen + "', no move of sowfan's");
                    return;
                }
                final Engine.Position expected;
                try {
                    expected = engine.position(fen, letter);
                } catch (final Engine.EngineException e) {
                    disagree(who + " played " + letter + " in '" + fen + "', which sowfan rejects: " + e.getMessage());
                    return;
                }
                if (expected.result == null) {
                    final String reached = variant.kalahFen(after);
                    if (ludiiOver) {
                        disagree("Ludii's game ends after " + who + "'s " + letter + " in '" + fen + "', sowfan's goes on in '"
                                + expected.fen + "'");
                    } else if (!expected.fen.equals(reached)) {
                        disagree(who + " played " + letter + " in '" + fen + "': Ludii reached '" + reached
                                + "', sowfan '" + expected.fen + "'");
                    }
                } else if (ludiiOver) {
                    compareEnd(expected, after);
                } else {
                    pendingEnd = expected;
                }
            }

            /**
             * Afrika and Anywoli: a sowfan move is a Ludii decision and, for Anywoli, the forced
             * relay laps after it. Once a move is complete, some legal sowfan move from the
             * position before it must reach Ludii's position (and at the end, its result).
             */
            private void sowingStep(final Context before, final Move move, final Context after, final String who)
                    throws Engine.EngineException {
                final Sowing sowing = variant.sowing;
                if (!sowing.relayPending(before)) {
                    turnFen = sowing.fen(before);
                }
                if (sowing.relayPending(after) || turnFen == null) {
                    return;
                }
                final String reached = sowing.comparable(sowing.fen(after), after.trial().over());
                engine.commands("position fen " + turnFen);
                engine.send("legal");
                String legal = "";
                for (final String line : engine.sync(10_000)) {
                    if (line.startsWith("legal")) {
                        legal = line.substring("legal".length()).trim();
                    }
                }
                for (final String m : legal.isEmpty() ? new String[0] : legal.split("\\s+")) {
                    final Engine.Position expected = engine.position(turnFen, m);
                    if (sowing.comparable(expected.fen, expected.result != null).equals(reached)) {
                        if (after.trial().over()) {
                            compareEnd(expected, after);
                        }
                        return;
                    }
                }
                disagree(who + "'s move " + move + " from '" + turnFen + "' reaches '" + sowing.fen(after)
                        + "', which no sowfan move (" + legal + ") does");
            }

            /** Ludii's final scores and winner against sowfan's. */
            private void compareEnd(final Engine.Position end, final Context after) {
                final String ludiiScore = "p1 " + after.score(1) + " p2 " + after.score(2);
                final int winner = after.trial().status() == null ? 0 : after.trial().status().winner();
                final String ludiiResult = winner == 1 ? "p1win" : winner == 2 ? "p2win" : "draw";
                if (!ludiiScore.equals(end.score) || !end.result.startsWith(ludiiResult)) {
                    disagree("the end: Ludii " + ludiiResult + " " + ludiiScore + ", sowfan " + end.result + " "
                            + end.score);
                }
            }

            private void fanoronaStep(final Context before, final Move move, final Context after, final String who)
                    throws Engine.EngineException {
                final int mover = before.state().mover();
                if (!turnOpen || turnMover != mover) {
                    turnFen = variant.fanoronaFen(before);
                    turnMoves = "";
                    turnMover = mover;
                    turnBroken = false;
                }
                // A capture that may go on keeps the turn open (Ludii's moveAgain).
                turnOpen = !move.isPass() && !after.trial().over() && after.state().mover() == mover;
                if (turnBroken) {
                    return;
                }
                if (move.isPass()) {
                    if (turnMoves.isEmpty()) {
                        // Ludii's forced Pass: the player to move has no legal move. Ludii's game
                        // ends on it when that player has no stones left; sowfan's game was over
                        // at the start of the turn (no stones or no move loses).
                        final String result = queryResult(turnFen, "");
                        if (after.trial().over()) {
                            endCheck(turnFen + " moves ", after);
                        } else {
                            disagree(who + " has stones but no legal move in '" + turnFen
                                    + "': Ludii makes it pass and plays on, sowfan's result is " + result);
                        }
                    }
                    return;
                }
                final int[] from = point(move.from());
                final int[] to = point(move.to());
                final String step = (char) ('a' + to[0]) + String.valueOf(to[1] + 1);
                final String start = turnMoves.isEmpty() ? (char) ('a' + from[0]) + String.valueOf(from[1] + 1) : turnMoves;
                final String reached = variant.fanoronaFen(after);
                final boolean capture = stones(board(reached)) < stones(board(variant.fanoronaFen(before)));
                final List<String> tried = new ArrayList<>();
                String matched = null;
                for (final String suffix : capture ? new String[] {"A", "W"} : new String[] {""}) {
                    final String candidate = start + "-" + step + suffix;
                    try {
                        final String expected = engine.fenAfter(turnFen, candidate);
                        if (board(expected).equals(board(reached))) {
                            matched = candidate;
                            break;
                        }
                        tried.add(candidate + " reaches '" + board(expected) + "'");
                    } catch (final Engine.EngineException e) {
                        tried.add(candidate + ": " + e.getMessage().replace("info string error: ", ""));
                    }
                }
                if (matched == null) {
                    disagree(who + "'s step " + (char) ('a' + from[0]) + (from[1] + 1) + "-" + step
                            + " (Ludii reaches '" + board(reached) + "') from turn start '" + turnFen + "': "
                            + String.join("; ", tried));
                    turnBroken = true;
                    return;
                }
                turnMoves = matched;
                if (after.trial().over()) {
                    endCheck(turnFen + " moves " + turnMoves, after);
                }
            }

            private int[] point(final int site) {
                for (int f = 0; f < variant.files; f++) {
                    for (int r = 0; r < variant.ranks; r++) {
                        if (variant.siteAt[f][r] == site) {
                            return new int[] {f, r};
                        }
                    }
                }
                return new int[] {-1, -1};
            }

            private String queryResult(final String fen, final String moves) throws Engine.EngineException {
                engine.send("position fen " + fen + (moves.isEmpty() ? "" : " moves " + moves));
                engine.send("query result");
                final List<String> read = engine.readUntil("response ", 10_000);
                for (final String line : read) {
                    if (line.startsWith("info string error")) {
                        throw new Engine.EngineException(line);
                    }
                }
                return read.get(read.size() - 1).substring("response ".length());
            }

            /** At Ludii's end of the game: does sowfan see the same end and winner? */
            private void endCheck(final String positionAndMoves, final Context after) throws Engine.EngineException {
                final int idx = positionAndMoves.indexOf(" moves ");
                final String result = queryResult(positionAndMoves.substring(0, idx),
                        positionAndMoves.substring(idx + " moves ".length()).trim());
                final int winner = after.trial().status() == null ? 0 : after.trial().status().winner();
                final String ludii = winner == 1 ? "p1win" : winner == 2 ? "p2win" : "draw";
                if (!result.equals(ludii)) {
                    disagree("Ludii ends the game with " + ludii + ", sowfan's result there is " + result);
                }
            }

            void end(final Context context) {
                if (!context.trial().over()) {
                    endNote += " (NOT OVER)";
                    engineFailed = true;
                }
            }
        }

        private static String board(final String fen) {
            final int space = fen.indexOf(' ');
            return space < 0 ? fen : fen.substring(0, space);
        }

        private static int stones(final String board) {
            int n = 0;
            for (final char c : board.toCharArray()) {
                if (c == 'W' || c == 'B') {
                    n++;
                }
            }
            return n;
        }
    }
}
