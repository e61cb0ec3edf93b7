package sowfan.ludii;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import game.Game;
// Current Ludii's packages; harness.sh (run by perft.sh) rewrites them for Ludii 1.0.x (see ludii-api.sh).
import other.GameLoader;
import other.context.Context;
import other.move.Move;
import other.trial.Trial;

/**
 * sowfan's perft replayed through Ludii's legal-move generation for this folder's Afrika.lud
 * and Anywoli.lud: from the start and from positions along a game that sowfan plays (mostly
 * its own best moves, some random ones), the number of move sequences of each length up to
 * the depth is counted by both, split by first move, and compared.
 *
 * <p>A sowfan move is one Ludii decision, followed for Anywoli by the forced relay laps of the
 * same turn ({@link Sowing#settle}); an Anywoli extra move (after a last seed that made four)
 * is a move of its own in both. Ludii's first moves are matched to sowfan's by the position
 * they reach (first moves reaching the same position, relays that meet, are counted together
 * on both sides), so the comparison also checks that every move reaches the same position.
 * The game itself is replayed in both: each move sowfan chooses must have a Ludii counterpart
 * reaching sowfan's position.
 */
public final class LudiiPerft {
    private static int failures;

    public static void main(final String[] args) throws Exception {
        String dir = ".";
        List<String> which = Arrays.asList("afrika", "anywoli");
        int depth = 3;
        int positions = 6;
        int every = 7;
        long seed = 1;
        String start = null;
        List<String> options = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--lud-dir": dir = args[++i]; break;
                case "--only": which = Arrays.asList(args[++i].split(",")); break;
                case "--depth": depth = Integer.parseInt(args[++i]); break;
                case "--positions": positions = Integer.parseInt(args[++i]); break;
                case "--every": every = Integer.parseInt(args[++i]); break;
                case "--seed": seed = Long.parseLong(args[++i]); break;
                case "--start": start = args[++i]; break;
                case "--options": options = Arrays.asList(args[++i].split(",")); break;
                default:
                    System.err.println("usage: LudiiPerft [--lud-dir DIR] [--only afrika,anywoli] "
                            + "[--depth N] [--positions N] [--every PLIES] [--seed N] [--start FEN] [--options Variant/Yit Nuri,...]");
                    System.exit(2);
            }
        }
        System.out.println("Ludii version " + main.Constants.LUDEME_VERSION + "; perft to depth " + depth
                + ", " + positions + " positions a game, every " + every + " plies, seed " + seed);
        for (final String name : which) {
            final String file = "afrika".equals(name) ? "Afrika.lud" : "anywoli".equals(name) ? "Anywoli.lud" : null;
            if (file == null) {
                throw new IllegalArgumentException("unknown game '" + name + "' (afrika, anywoli)");
            }
            final File lud = start == null ? new File(dir, file) : withStart(new File(dir, file), start);
            final Game game = GameLoader.loadGameFromFile(lud, new ArrayList<>(options));
            final Sowing sowing = Sowing.of(game);
            if (sowing == null) {
                throw new IllegalStateException(file + " is not mapped by the AI");
            }
            final Context initial = new Context(game, new Trial(game));
            game.start(initial);
            final String startFen = start != null ? start : sowing.fen(initial);
            System.out.println();
            System.out.println("== " + file + ": sowfan '" + sowing.newgame + "', from " + startFen);
            run(game, sowing, startFen, depth, positions, every, new Random(seed));
        }
        System.out.println();
        System.out.println(failures == 0 ? "every count equal" : failures + " differences: FAILED");
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * The description with another start: the board of {@code fen} (the player to move must be
     * Ludii's P1, and the stores are left empty: neither changes which moves are legal).
     */
    private static File withStart(final File lud, final String fen) throws IOException {
        final String text = new String(Files.readAllBytes(lud.toPath()), StandardCharsets.UTF_8);
        final Matcher rule = Pattern.compile("\\(start \\((set Count \\d+ to:\\(sites Track\\)|place \"Seed\" \\(sites Track\\) counts:\\{[^}]*\\})\\)\\)").matcher(text);
        if (!rule.find()) {
            throw new IOException(lud + " has no start rule to change");
        }
        final String[] rows = fen.trim().split("\\s+")[0].split("/");
        final StringBuilder start = new StringBuilder("(start {");
        for (int side = 0; side < 2; side++) {
            final String[] counts = rows[side].split(",");
            final int pits = counts.length - 1;
            for (int i = 0; i < pits; i++) {
                final int site = side == 0 ? i : 2 * pits - 1 - i; // South's row, then North's from its left
                if (Integer.parseInt(counts[i]) > 0) {
                    start.append(" (place \"Seed\" ").append(site).append(" count:").append(counts[i]).append(')');
                }
            }
        }
        start.append(" })");
        final File file = File.createTempFile(lud.getName().replace(".lud", "-"), ".lud");
        file.deleteOnExit();
        Files.write(file.toPath(), (text.substring(0, rule.start()) + start + text.substring(rule.end()))
                .getBytes(StandardCharsets.UTF_8));
        return file;
    }

    private static void run(final Game game, final Sowing sowing, final String startFen, final int depth, final int positions,
            final int every, final Random random) throws Engine.EngineException {
        final List<String> command = Collections.singletonList(Engine.programPath());
        final Engine engine = Engine.start(command, Collections.emptyList(), SowfanAI::debug);
        try {
            engine.commands(sowing.newgame);
            final Context context = new Context(game, new Trial(game));
            game.start(context);
            final List<String> played = new ArrayList<>();
            int compared = 0;
            for (int ply = 0; compared < positions; ply++) {
                final String fen = sowing.fen(context);
                final String moves = String.join(" ", played);
                final Engine.Position here = engine.position(startFen, moves);
                if (!key(sowing, here).equals(key(sowing, context))) {
                    fail("after '" + moves + "' sowfan has '" + here.fen + "', Ludii '" + fen + "'");
                    return;
                }
                if (here.result != null || context.trial().over()) {
                    if ((here.result == null) != !context.trial().over()) {
                        fail("after '" + moves + "' the game is over for one and not the other: sowfan "
                                + here.result + ", Ludii over " + context.trial().over());
                    } else {
                        final int winner = context.trial().status() == null ? 0 : context.trial().status().winner();
                        final String ludii = winner == 1 ? "p1win" : winner == 2 ? "p2win" : "draw";
                        final String scores = "p1 " + context.score(1) + " p2 " + context.score(2);
                        final boolean agree = here.result.startsWith(ludii) && scores.equals(here.score);
                        System.out.printf("end after %d moves: %s; sowfan %s (%s), Ludii %s (%s)  %s%n", ply, fen,
                                here.result, here.score, ludii, scores, agree ? "same" : "DIFFERENT");
                        if (!agree) {
                            failures++;
                        }
                    }
                    break;
                }
                if (ply % every == 0) {
                    compare(game, sowing, startFen, engine, context, moves, ply, depth);
                    compared++;
                }
                engine.commands("position fen " + startFen + (moves.isEmpty() ? "" : " moves " + moves));
                final List<String> legal = legal(engine, moves);
                final String move = random.nextInt(4) == 0 ? legal.get(random.nextInt(legal.size()))
                        : engine.bestMove("depth 3", 60_000);
                final String target = key(sowing, engine.position(startFen, (moves + " " + move).trim()));
                // Two moves may reach the same position (relays that meet): either will do.
                Move chosen = null;
                for (final Move m : game.moves(context).moves()) {
                    if (chosen == null && key(sowing, after(game, sowing, context, m)).equals(target)) {
                        chosen = m;
                    }
                }
                if (chosen == null) {
                    fail("no Ludii move reaches sowfan's position after '" + moves + " " + move + "': " + target);
                    return;
                }
                game.apply(context, chosen);
                sowing.settle(game, context);
                played.add(move);
            }
        } finally {
            engine.quit();
        }
    }

    private static void compare(final Game game, final Sowing sowing, final String startFen, final Engine engine,
            final Context context, final String moves, final int ply, final int depth)
            throws Engine.EngineException {
        // sowfan: perft split by first move, each first move named by the position it reaches.
        engine.commands("position fen " + startFen + (moves.isEmpty() ? "" : " moves " + moves));
        engine.send("perft " + depth);
        final Map<String, Long> sowfanCounts = new LinkedHashMap<>();
        final Map<String, String> names = new LinkedHashMap<>();
        final List<String> lines = engine.readUntil("Nodes searched", 600_000);
        engine.sync(60_000); // the "Time" and speed lines
        long sowfanTotal = 0;
        for (final String line : lines) {
            final int colon = line.indexOf(": ");
            if (line.startsWith("Nodes searched")) {
                sowfanTotal = Long.parseLong(line.substring(colon + 2).trim());
            } else if (colon > 0 && !line.startsWith("info")) {
                final String move = line.substring(0, colon);
                final String reached = key(sowing, engine.position(startFen, (moves + " " + move).trim()));
                // Moves that reach the same position are counted together on both sides.
                sowfanCounts.merge(reached, Long.parseLong(line.substring(colon + 2).trim()), Long::sum);
                names.merge(reached, move, (a, b) -> a + "/" + b);
            }
        }
        // Ludii: the same, each whole move a decision plus its forced relay laps.
        final long start = System.currentTimeMillis();
        final Map<String, Long> ludiiCounts = new LinkedHashMap<>();
        long ludiiTotal = 0;
        long[] byDepth = new long[depth + 1];
        for (final Move m : game.moves(context).moves()) {
            final Context after = after(game, sowing, context, m);
            final long n = perft(game, sowing, after, depth - 1, byDepth, 1);
            ludiiCounts.merge(key(sowing, after), n, Long::sum);
            ludiiTotal += n;
        }
        final long millis = System.currentTimeMillis() - start;
        final boolean same = sowfanCounts.equals(ludiiCounts) && sowfanTotal == ludiiTotal;
        final StringBuilder perDepth = new StringBuilder();
        for (int d = 1; d <= depth; d++) {
            perDepth.append(d == 1 ? "" : " ").append(d == 1 ? game.moves(context).moves().size() : byDepth[d - 1]);
        }
        System.out.printf("ply %3d  %-62s perft %d: sowfan %d, Ludii %d (by depth %s; Ludii %d ms)  %s%n",
                ply, sowing.fen(context), depth, sowfanTotal, ludiiTotal, perDepth, millis,
                same ? "same" : "DIFFERENT");
        if (!same) {
            failures++;
            for (final Map.Entry<String, Long> e : sowfanCounts.entrySet()) {
                final Long ludii = ludiiCounts.get(e.getKey());
                if (!e.getValue().equals(ludii)) {
                    System.out.println("  " + names.get(e.getKey()) + " -> " + e.getKey() + ": sowfan "
                            + e.getValue() + ", Ludii " + ludii);
                }
            }
            for (final Map.Entry<String, Long> e : ludiiCounts.entrySet()) {
                if (!sowfanCounts.containsKey(e.getKey())) {
                    System.out.println("  (Ludii only) -> " + e.getKey() + ": Ludii " + e.getValue());
                }
            }
        }
    }

    /** Leaves {@code depth} whole moves below {@code context}; counts nodes per ply in {@code byDepth}. */
    private static long perft(final Game game, final Sowing sowing, final Context context, final int depth,
            final long[] byDepth, final int ply) {
        if (depth == 0) {
            return 1;
        }
        if (context.trial().over()) {
            return 0;
        }
        long n = 0;
        final List<Move> moves = new ArrayList<>();
        for (final Move m : game.moves(context).moves()) {
            moves.add(m);
        }
        byDepth[ply] += moves.size();
        for (final Move m : moves) {
            n += perft(game, sowing, after(game, sowing, context, m), depth - 1, byDepth, ply + 1);
        }
        return n;
    }

    /** What both programs must agree on in a position: see {@link Sowing#comparable}. */
    private static String key(final Sowing sowing, final Context context) {
        return sowing.comparable(sowing.fen(context), context.trial().over());
    }

    private static String key(final Sowing sowing, final Engine.Position position) {
        return sowing.comparable(position.fen, position.result != null);
    }

    private static Context after(final Game game, final Sowing sowing, final Context context, final Move move) {
        final Context copy = new Context(context);
        game.apply(copy, move);
        sowing.settle(game, copy);
        return copy;
    }

    private static List<String> legal(final Engine engine, final String moves) throws Engine.EngineException {
        engine.send("legal");
        for (final String line : engine.sync(10_000)) {
            if (line.startsWith("legal")) {
                final List<String> list = new ArrayList<>(Arrays.asList(line.trim().split("\\s+")));
                list.remove(0);
                return list;
            }
        }
        throw new Engine.EngineException("no answer to legal after '" + moves + "'");
    }

    private static void fail(final String text) {
        failures++;
        System.out.println("FAIL: " + text);
    }
}
