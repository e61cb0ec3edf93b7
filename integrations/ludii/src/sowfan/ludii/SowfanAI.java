package sowfan.ludii;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import game.Game;
import game.types.board.SiteType;
// The four imports below are those of current Ludii (1.1 and later). build.sh rewrites them
// (ludii-api.sh) for Ludii 1.0.x, where the same classes are util.AI, util.Context, util.Move
// and util.Trial; nothing else in this file differs between the two.
import other.AI;
import other.context.Context;
import other.move.Move;
import other.trial.Trial;
import utils.AIFactory;

/**
 * A Ludii AI that plays with the sowfan engine: Kalah (Ludii's Kalah.lud, any number of seeds),
 * Fanorona (Ludii's Fanorona.lud, boards Telo 3x3, Dimy 5x5 and Tsivy 9x5), and Afrika and
 * Anywoli as this folder's Afrika.lud and Anywoli.lud describe them ({@link Sowing}).
 *
 * <p>Every decision sends the Ludii position to sowfan as a position string, asks for
 * {@code go movetime} (Ludii's time budget) and maps sowfan's {@code bestmove} to the Ludii move
 * it stands for: the legal Ludii move from and to the same points whose resulting board is the
 * board sowfan expects. A Fanorona chain is one sowfan move but one Ludii decision per step:
 * the whole turn is planned at its first step and played step by step, then ended with Ludii's
 * Pass. When Ludii offers no move sowfan's answer stands for, the AI says so on stderr and
 * plays the move a Ludii UCT search prefers (a legal move in any case).
 *
 * <p>Configuration (Java system properties, or environment variables in parentheses):
 * {@code sowfan.path} ({@code SOWFAN_PATH}) the program, else {@code sowfan} on the PATH;
 * {@code sowfan.options} ({@code SOWFAN_OPTIONS}) engine options as {@code Name=value;...},
 * e.g. {@code Threads=2;Hash=256;TablebasePath=/data/tables};
 * {@code sowfan.movetime} ({@code SOWFAN_MOVETIME}) milliseconds per decision instead of
 * Ludii's budget; {@code sowfan.debug=true} prints the protocol dialogue on stderr.
 */
public class SowfanAI extends AI {
    private Engine engine;
    /** The {@code newgame} command the engine was last given (null: none yet). */
    private String engineGame;
    private int player;
    private Variant variant;
    /** The Fanorona turn in progress (null between turns). */
    private Plan plan;
    /** Ludii's own AI, for a move when sowfan's has no Ludii counterpart. */
    private AI fallback;

    /** Why the last move was not sowfan's (null when it was). */
    private String report;

    public SowfanAI() {
        this.friendlyName = NAME;
    }

    // ------------------------------------------------------------------------------------------
    // Ludii's AI interface

    /** The name Ludii shows, and the start of every message it shows of this AI. */
    private static final String NAME = "sowfan";

    /**
     * True for the games sowfan maps while the engine can be used. When it cannot (not found, or
     * it failed to start), this is false and the name says why: Ludii's GUI then shows "sowfan
     * (unavailable: ...) does not support this game" in its status panel and gives the player
     * its default AI, instead of playing Ludii's moves under sowfan's name.
     */
    @Override
    public boolean supportsGame(final Game game) {
        if (Variant.of(game) == null) {
            return false;
        }
        final String problem = EngineSupply.problem();
        friendlyName = problem == null ? NAME : NAME + " (unavailable: " + problem + ")";
        return problem == null;
    }

    /**
     * What Ludii's GUI prints in its analysis panel after this AI's move: why the move was not
     * sowfan's, when it was not (null otherwise: nothing is printed).
     */
    @Override
    public String generateAnalysisReport() {
        return report;
    }

    @Override
    public void initAI(final Game game, final int playerID) {
        player = playerID;
        variant = Variant.of(game);
        plan = null;
        engineGame = null; // a new game: a fresh newgame clears the engine's table
        if (fallback != null) {
            fallback.closeAI();
            fallback = null;
        }
        if (variant == null) {
            warn("this game is not one sowfan maps (" + game.name() + "); playing Ludii's moves");
        }
        final String problem = EngineSupply.problem();
        if (problem != null) {
            warn(problem + "; playing Ludii's moves");
        }
    }

    @Override
    public void closeAI() {
        if (engine != null) {
            engine.quit();
            engine = null;
        }
        engineGame = null;
        plan = null;
        if (fallback != null) {
            fallback.closeAI();
            fallback = null;
        }
    }

    @Override
    public Move selectAction(final Game game, final Context context, final double maxSeconds,
            final int maxIterations, final int maxDepth) {
        if (variant == null || variant.game != game) {
            variant = Variant.of(game);
            plan = null;
        }
        report = null;
        final List<Move> legal = legalMoves(game, context);
        if (legal.size() == 1 && legal.get(0).isPass()) {
            plan = null;
            return legal.get(0);
        }
        if (variant == null) {
            return fallbackMove(game, context, maxSeconds, "the game is not one sowfan maps");
        }
        try {
            final String go = goParameters(maxSeconds, maxDepth);
            final Move move = variant.kalah ? kalahMove(game, context, legal, go)
                            : variant.sowing != null ? sowingMove(game, context, legal, go)
                            : fanoronaMove(game, context, legal, go);
            if (move != null) {
                return move;
            }
            return fallbackMove(game, context, maxSeconds, "sowfan's move has no Ludii counterpart");
        } catch (final IllegalStateException e) {
            return fallbackMove(game, context, maxSeconds, "Ludii's game went where the description does not: "
                    + e.getMessage());
        } catch (final Engine.EngineException e) {
            final boolean started = engine != null;
            if (started) {
                engine.quit();
            }
            engine = null;
            engineGame = null;
            plan = null;
            // An engine that ran and then failed is started again at the next move; one that
            // could not be started is not tried again (EngineSupply remembers it).
            return fallbackMove(game, context, maxSeconds, started
                    ? "the engine failed (" + e.getMessage() + "); it is restarted at the next move"
                    : e.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Kalah: one Ludii move per sowing, as in sowfan

    private Move kalahMove(final Game game, final Context context, final List<Move> legal,
            final String go) throws Engine.EngineException {
        final int total = variant.kalahTotalSeeds(context);
        if (total % (2 * variant.pits) != 0 || total / (2 * variant.pits) > 12
                || total == 0) {
            warn("Kalah with " + total + " seeds on " + variant.pits
                    + " pits a side is not a start sowfan knows (1..12 seeds a pit)");
            return null;
        }
        ensureGame("newgame kalah pits=" + variant.pits + " seeds=" + total / (2 * variant.pits)
                + " " + variant.rules);
        final String fen = variant.kalahFen(context);
        engine.commands("position fen " + fen);
        final String best = engine.bestMove(go, timeoutFor(go));
        final int site = variant.kalahSite(best);
        if (site < 0) {
            warn("sowfan answered '" + best + "' in position '" + fen + "', which is not a pit");
            return null;
        }
        final Engine.Position expected = engine.position(fen, best);
        for (final Move move : legal) {
            if (!move.isPass() && move.from() == site) {
                // At the end sowfan's board has the leftovers in the stores, Ludii's has not:
                // compare boards only while the game goes on.
                final String reached = board(variant.kalahFen(after(game, context, move)));
                if (expected.result == null && !reached.equals(board(expected.fen))) {
                    warn("rules disagree: after " + best + " from '" + fen + "' Ludii reaches '"
                            + reached + "', sowfan '" + expected.fen + "'");
                }
                return move;
            }
        }
        warn("sowfan's move " + best + " from '" + fen + "' is not legal in Ludii");
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // Afrika and Anywoli (this folder's descriptions): a sowfan move is one Ludii decision, and
    // for Anywoli the forced relay laps that follow it

    private Move sowingMove(final Game game, final Context context, final List<Move> legal,
            final String go) throws Engine.EngineException {
        final Sowing sowing = variant.sowing;
        if (sowing.relayPending(context) && legal.size() == 1) {
            return legal.get(0); // an Anywoli relay lap: part of the move already chosen
        }
        ensureGame(sowing.newgame);
        final String fen = sowing.fen(context);
        engine.commands("position fen " + fen);
        final String best = engine.bestMove(go, timeoutFor(go));
        final Engine.Position expected = engine.position(fen, best);
        final String target = sowing.comparable(expected.fen, expected.result != null);
        for (final Move move : legal) {
            final Context reached = after(game, context, move);
            sowing.settle(game, reached);
            if (sowing.comparable(sowing.fen(reached), reached.trial().over()).equals(target)) {
                return move;
            }
        }
        warn("rules disagree: no Ludii move from '" + fen + "' reaches sowfan's '" + expected.fen
                + "' after " + best);
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // Fanorona: sowfan plays a turn as one move, Ludii as one decision per step

    /** A turn sowfan chose, being played step by step. */
    private static final class Plan {
        final int mover;
        final String startFen;
        final Chain chain;
        /** The board (first field of a position string) after 0, 1, ... steps. */
        final List<String> boards;
        int done;

        Plan(final int mover, final String startFen, final Chain chain, final List<String> boards) {
            this.mover = mover;
            this.startFen = startFen;
            this.chain = chain;
            this.boards = boards;
        }
    }

    private Move fanoronaMove(final Game game, final Context context, final List<Move> legal,
            final String go) throws Engine.EngineException {
        ensureGame(variant.fanoronaNewgame());
        final int mover = context.state().mover();
        final boolean midTurn = context.state().prev() == mover && context.trial().numMoves() > 0
                && context.trial().lastMove() != null && !context.trial().lastMove().isPass()
                && context.trial().lastMove().mover() == mover;
        final String fen = variant.fanoronaFen(context);
        if (midTurn) {
            if (plan == null || plan.mover != mover || !plan.boards.get(plan.done).equals(board(fen))) {
                warn("a chain goes on that sowfan did not start (or the board is not the one it "
                        + "expected: '" + board(fen) + "'); ending it");
                plan = null;
                return passMove(legal);
            }
        } else {
            engine.commands("position fen " + fen);
            final String best = engine.bestMove(go, timeoutFor(go));
            if (best.equals("0000")) {
                warn("sowfan sees no legal move in '" + fen + "'");
                plan = null;
                return null;
            }
            final Chain chain;
            try {
                chain = Chain.parse(best);
            } catch (final IllegalArgumentException e) {
                warn("sowfan answered " + e.getMessage());
                return null;
            }
            final List<String> boards = new ArrayList<>();
            boards.add(board(fen));
            for (int i = 1; i <= chain.steps(); i++) {
                boards.add(board(engine.fenAfter(fen, chain.prefix(i))));
            }
            plan = new Plan(mover, fen, chain, boards);
        }
        if (plan.done == plan.chain.steps()) {
            // sowfan's chain is over: ending the turn is Ludii's Pass. Ludii may offer more steps
            // here (it lets a chain step twice in the same direction, which sowfan forbids).
            plan = null;
            final Move pass = passMove(legal);
            if (pass == null) {
                warn("sowfan's chain is over but Ludii offers no Pass");
            }
            return pass;
        }
        final int[] from = plan.chain.points.get(plan.done);
        final int[] to = plan.chain.points.get(plan.done + 1);
        final int fromSite = variant.site(from[0], from[1]);
        final int toSite = variant.site(to[0], to[1]);
        final String expected = plan.boards.get(plan.done + 1);
        final List<String> seen = new ArrayList<>();
        for (final Move move : legal) {
            if (move.isPass() || move.from() != fromSite || move.to() != toSite) {
                continue;
            }
            final String reached = board(variant.fanoronaFen(after(game, context, move)));
            if (reached.equals(expected)) {
                plan.done++;
                return move;
            }
            seen.add(reached);
        }
        warn("step " + (plan.done + 1) + " of sowfan's move " + plan.chain.prefix(plan.chain.steps())
                + " from '" + plan.startFen + "' has no Ludii counterpart (expected board '"
                + expected + "', Ludii's moves from and to the same points reach " + seen + ")");
        plan = null;
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // Engine, time and fallback

    private void ensureGame(final String newgame) throws Engine.EngineException {
        if (engine == null || !engine.alive()) {
            engineGame = null;
            engine = EngineSupply.start(SowfanAI::debug);
        }
        if (!newgame.equals(engineGame)) {
            engine.commands(newgame);
            engineGame = newgame;
        }
    }

    /** {@code go} parameters for Ludii's limits: its time (or -Dsowfan.movetime) and its depth. */
    static String goParameters(final double maxSeconds, final int maxDepth) {
        long millis = -1;
        String fixed = System.getProperty("sowfan.movetime");
        if (fixed == null) {
            fixed = System.getenv("SOWFAN_MOVETIME");
        }
        if (fixed != null) {
            try {
                millis = Long.parseLong(fixed.trim());
            } catch (final NumberFormatException e) {
                warn("sowfan.movetime '" + fixed + "' is not a number of milliseconds; ignored");
            }
        }
        if (millis <= 0 && maxSeconds > 0) {
            millis = Math.max(1, (long) (maxSeconds * 1000));
        }
        final StringBuilder go = new StringBuilder();
        if (maxDepth > 0) {
            go.append("depth ").append(maxDepth);
        }
        if (millis > 0 || maxDepth <= 0) {
            if (go.length() > 0) {
                go.append(' ');
            }
            go.append("movetime ").append(millis > 0 ? millis : 1000);
        }
        return go.toString();
    }

    private static long timeoutFor(final String go) {
        final String[] tokens = go.split(" ");
        for (int i = 0; i + 1 < tokens.length; i++) {
            if (tokens[i].equals("movetime")) {
                return Long.parseLong(tokens[i + 1]) + 5_000;
            }
        }
        return 600_000;
    }

    private Move fallbackMove(final Game game, final Context context, final double maxSeconds,
            final String why) {
        final List<Move> legal = legalMoves(game, context);
        warn(why + ": playing the move of Ludii's UCT instead");
        report = NAME + ": " + why + "; this move is Ludii's UCT's";
        try {
            if (fallback == null) {
                fallback = AIFactory.createAI("UCT");
                fallback.initAI(game, player);
            }
            final Move move = fallback.selectAction(game, new Context(context),
                    maxSeconds > 0 ? Math.min(maxSeconds, 1.0) : 1.0, -1, -1);
            if (move != null) {
                return move;
            }
        } catch (final RuntimeException e) {
            warn("Ludii's UCT failed too (" + e + "); playing Ludii's first legal move");
        }
        return legal.get(0);
    }

    private static Move passMove(final List<Move> legal) {
        for (final Move move : legal) {
            if (move.isPass()) {
                return move;
            }
        }
        return null;
    }

    /** Ludii's legal moves, generated once. */
    private static List<Move> legalMoves(final Game game, final Context context) {
        final List<Move> moves = new ArrayList<>();
        for (final Move move : game.moves(context).moves()) {
            moves.add(move);
        }
        return moves;
    }

    private static Context after(final Game game, final Context context, final Move move) {
        final Context copy = new Context(context);
        game.apply(copy, move);
        return copy;
    }

    /** The board field of a position string (its first token). */
    private static String board(final String fen) {
        final int space = fen.indexOf(' ');
        return space < 0 ? fen : fen.substring(0, space);
    }

    /** Warnings printed so far by every instance (for tests). */
    private static final AtomicInteger WARNINGS = new AtomicInteger();

    static void warn(final String text) {
        WARNINGS.incrementAndGet();
        System.err.println("sowfan-ludii: " + text);
    }

    static int warnings() {
        return WARNINGS.get();
    }

    static void debug(final String text) {
        if (Boolean.getBoolean("sowfan.debug")) {
            System.err.println("sowfan-ludii: " + text);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Which sowfan game a Ludii game is, and its boards in sowfan's position strings

    /** The mapping of one Ludii game onto a sowfan game. */
    static final class Variant {
        final Game game;
        final boolean kalah;
        /** Fanorona: the sowfan game name; the board's files and ranks. */
        final String sowfanGame;
        final int files;
        final int ranks;
        /** Fanorona: Ludii's vertex at [file][rank]. */
        final int[][] siteAt;
        /** Kalah: pits a side; Ludii's vertices of South's pits A.., North's pits a.., the stores. */
        final int pits;
        final int[] southPits;
        final int[] northPits;
        final int southStore;
        final int northStore;
        /**
         * The sowfan options for the rules Ludii's game plays, found by playing it: Kalah's rule
         * set ({@link KalahRules}); Fanorona's chain rule ({@code same-direction=allowed}, or
         * empty: {@link FanoronaRules}).
         */
        final String rules;
        /** Afrika and Anywoli: their mapping (null for the other games). */
        final Sowing sowing;

        private Variant(final Game game, final String sowfanGame, final int files, final int ranks,
                final int[][] siteAt, final int pits, final int[] southPits, final int[] northPits,
                final int southStore, final int northStore, final String rules) {
            this.game = game;
            this.kalah = sowfanGame == null;
            this.sowfanGame = sowfanGame;
            this.files = files;
            this.ranks = ranks;
            this.siteAt = siteAt;
            this.pits = pits;
            this.southPits = southPits;
            this.northPits = northPits;
            this.southStore = southStore;
            this.northStore = northStore;
            this.rules = rules;
            this.sowing = null;
        }

        private Variant(final Game game, final Sowing sowing) {
            this.game = game;
            this.kalah = false;
            this.sowfanGame = sowing.anywoli ? "anywoli" : "afrika";
            this.files = 0;
            this.ranks = 0;
            this.siteAt = null;
            this.pits = sowing.south.length;
            this.southPits = sowing.south;
            this.northPits = sowing.north;
            this.southStore = -1;
            this.northStore = -1;
            this.rules = null;
            this.sowing = sowing;
        }

        /**
         * The mappings found so far, by game (a Kalah's costs a probe of Ludii's rules; the GUI
         * asks {@code supportsGame} often). A game sowfan does not play maps to {@link #NONE}.
         */
        private static final Map<Game, Variant> KNOWN = new WeakHashMap<>();
        private static final Variant NONE = new Variant(null, null, 0, 0, null, 0, null, null, -1, -1, null);

        /** The mapping, or null (with the reason on stderr) for a game sowfan does not play. */
        static Variant of(final Game game) {
            if (game == null) {
                return null;
            }
            synchronized (KNOWN) {
                Variant known = KNOWN.get(game);
                if (known == null) {
                    known = find(game);
                    KNOWN.put(game, known == null ? NONE : known);
                }
                return known == NONE ? null : known;
            }
        }

        private static Variant find(final Game game) {
            if (game == null || game.players().count() != 2 || game.board() == null
                    || game.board().defaultSite() != SiteType.Vertex) {
                return null;
            }
            final String name = game.name();
            if ("Kalah".equals(name)) {
                return kalah(game);
            }
            if ("Fanorona".equals(name)) {
                return fanorona(game);
            }
            final Sowing sowing = Sowing.of(game);
            return sowing == null ? null : new Variant(game, sowing);
        }

        /**
         * A Ludii Kalah: a mancala board of 2 rows and n pits, the stores at the ends of the
         * bottom row (South's, P1's, on the right). Its rules are found by playing it
         * ({@link #probeKalahRules}), not read from its text. Ludii's Kalah.lud (1.0.8 and
         * 1.3.x alike) captures only when the opposite pit holds seeds, gives a row's seeds to
         * its owner at the end, and ends with {@code (no Moves Mover)}: sowfan's {@code
         * end=on-move}, the game goes on while the player to move has seeds (an empty row of the
         * player who has just moved does not end it); a player to move without seeds makes
         * Ludii's forced Pass, and the game ends on that Pass with nothing changed.
         */
        private static Variant kalah(final Game game) {
            final int n = game.board().topology().vertices().size();
            final int pits = (n - 2) / 2;
            if (n % 2 != 0 || pits < 1 || pits > 12) {
                return null;
            }
            final int[] south = new int[pits];
            final int[] north = new int[pits];
            int southStore = -1;
            int northStore = -1;
            int found = 0;
            for (int site = 0; site < n; site++) {
                final int row = game.board().topology().vertices().get(site).row();
                final int col = game.board().topology().vertices().get(site).col();
                if (col == 0 && row == 0) {
                    northStore = site;
                } else if (col == pits + 1 && row == 0) {
                    southStore = site;
                } else if (col >= 1 && col <= pits && row == 0) {
                    south[col - 1] = site;
                    found++;
                } else if (col >= 1 && col <= pits && row == 1) {
                    north[pits - col] = site; // North's a is on the board's right
                    found++;
                } else {
                    return null;
                }
            }
            if (found != 2 * pits || southStore < 0 || northStore < 0) {
                return null;
            }
            final Variant layout = new Variant(game, null, 0, 0, null, pits, south, north, southStore,
                    northStore, null);
            final KalahRules rules = layout.probeKalahRules();
            if (rules == null) {
                return null;
            }
            return new Variant(game, null, 0, 0, null, pits, south, north, southStore, northStore,
                    rules.options());
        }

        /** Random games played by the probe of a Kalah's rules, and the seed of their moves. */
        static final int PROBE_GAMES = 200;
        private static final long PROBE_SEED = 20261204L;

        /**
         * Which of sowfan's Kalah rule sets this Ludii Kalah plays ({@link KalahRules}): random
         * games in Ludii's compiled game, each move checked against the eight. Null, with the
         * reason on stderr, when none or more than one fits.
         */
        private KalahRules probeKalahRules() {
            final KalahRules.Inference inference = new KalahRules.Inference(pits);
            final SplittableRandom random = new SplittableRandom(PROBE_SEED);
            try {
                for (int g = 0; g < PROBE_GAMES && !inference.candidates().isEmpty(); g++) {
                    final Context context = new Context(game, new Trial(game));
                    game.start(context);
                    for (int ply = 0; ply < 2000 && !context.trial().over(); ply++) {
                        final List<Move> legal = legalMoves(game, context);
                        if (legal.isEmpty()) {
                            break;
                        }
                        final Move move = legal.get(random.nextInt(legal.size()));
                        final int[] before = kalahLayout(context);
                        final int mover = context.state().mover() == 1 ? 0 : 1;
                        final int pit = move.isPass() ? -1 : layoutIndex(move.from());
                        game.apply(context, move);
                        final boolean over = context.trial().over();
                        inference.observe(new KalahRules.Observation(before, mover, pit,
                                kalahLayout(context), context.state().mover() == 1 ? 0 : 1, over,
                                over ? context.score(1) : 0, over ? context.score(2) : 0));
                    }
                }
            } catch (final RuntimeException e) {
                warn("Ludii's Kalah could not be played to find its rules (" + e + "); not supported");
                return null;
            }
            final List<KalahRules> left = inference.candidates();
            if (left.size() == 1) {
                debug("Kalah's rules from " + inference.observations() + " moves of Ludii's game: " + left.get(0));
                return left.get(0);
            }
            warn(left.isEmpty()
                    ? "this Kalah plays by rules sowfan does not have (" + inference.lastReason() + "); not supported"
                    : "this Kalah's rules could not be told apart in " + PROBE_GAMES + " random games ("
                      + left + "); not supported");
            return null;
        }

        /** sowfan's Kalah layout of the board: South's pits, store, North's pits, store. */
        private int[] kalahLayout(final Context context) {
            final int[] board = new int[2 * pits + 2];
            for (int i = 0; i < pits; i++) {
                board[i] = count(context, southPits[i]);
                board[pits + 1 + i] = count(context, northPits[i]);
            }
            board[pits] = count(context, southStore);
            board[2 * pits + 1] = count(context, northStore);
            return board;
        }

        /**
         * The layout index of a Ludii pit; for a site that is not a pit, an index beyond the
         * layout (which no rule set sows from).
         */
        private int layoutIndex(final int site) {
            for (int i = 0; i < pits; i++) {
                if (southPits[i] == site) {
                    return i;
                }
                if (northPits[i] == site) {
                    return pits + 1 + i;
                }
            }
            return 2 * pits + 2;
        }

        /** Ludii's Fanorona.lud: Telo 3x3, Dimy 5x5, Tsivy 9x5 (5 rows of 9). P1 is White. */
        private static Variant fanorona(final Game game) {
            final int n = game.board().topology().vertices().size();
            int maxRow = 0;
            int maxCol = 0;
            for (int site = 0; site < n; site++) {
                maxRow = Math.max(maxRow, game.board().topology().vertices().get(site).row());
                maxCol = Math.max(maxCol, game.board().topology().vertices().get(site).col());
            }
            final int files = maxCol + 1;
            final int ranks = maxRow + 1;
            final String sowfanGame;
            if (files == 9 && ranks == 5) {
                sowfanGame = "fanorona";
            } else if (files == 5 && ranks == 5) {
                sowfanGame = "fanorona-dimy";
            } else if (files == 3 && ranks == 3) {
                sowfanGame = "fanorona-telo";
            } else {
                return null;
            }
            if (n != files * ranks) {
                return null;
            }
            final int[][] siteAt = new int[files][ranks];
            for (int site = 0; site < n; site++) {
                siteAt[game.board().topology().vertices().get(site).col()]
                      [game.board().topology().vertices().get(site).row()] = site;
            }
            final Variant layout = new Variant(game, sowfanGame, files, ranks, siteAt, 0, null, null, -1, -1, null);
            final String chainRule = layout.probeFanoronaRules();
            if (chainRule == null) {
                return null;
            }
            return new Variant(game, sowfanGame, files, ranks, siteAt, 0, null, null, -1, -1, chainRule);
        }

        /** Random games played by the probe of a Fanorona's chain rule, and their length. */
        static final int FANORONA_PROBE_GAMES = 400;
        private static final int FANORONA_PROBE_DECISIONS = 300;
        /** Straight-on captures the probe looks for before it stops. */
        private static final int FANORONA_PROBE_CHANCES = 3;

        /**
         * Whether this Ludii Fanorona lets a chain go on in the direction of the step before
         * ({@link FanoronaRules}): random games in Ludii's compiled game (seeded), stopped once
         * {@link #FANORONA_PROBE_CHANCES} straight-on captures were possible. The option for
         * sowfan's {@code newgame} (empty for the traditional rule), or null, with the reason on
         * stderr, when Ludii offers such a step at some times and not at others.
         */
        private String probeFanoronaRules() {
            if (!FanoronaRules.possible(files, ranks)) {
                return "";
            }
            final FanoronaRules rules = new FanoronaRules(files, ranks);
            final SplittableRandom random = new SplittableRandom(PROBE_SEED);
            int decisions = 0;
            try {
                for (int g = 0; g < FANORONA_PROBE_GAMES && rules.chances() < FANORONA_PROBE_CHANCES; g++) {
                    final Context context = new Context(game, new Trial(game));
                    game.start(context);
                    final List<int[]> turn = new ArrayList<>();
                    for (int ply = 0; ply < FANORONA_PROBE_DECISIONS && !context.trial().over(); ply++) {
                        final List<Move> legal = legalMoves(game, context);
                        if (legal.isEmpty()) {
                            break;
                        }
                        decisions++;
                        final int mover = context.state().mover();
                        if (turn.size() >= 2) {
                            final int[] at = turn.get(turn.size() - 1);
                            final List<int[]> targets = new ArrayList<>();
                            for (final Move move : legal) {
                                if (!move.isPass() && move.from() == siteAt[at[0]][at[1]]) {
                                    targets.add(point(move.to()));
                                }
                            }
                            rules.observe(stones(context), mover, turn.toArray(new int[0][]),
                                    targets.toArray(new int[0][]));
                        }
                        final Move move = legal.get(random.nextInt(legal.size()));
                        game.apply(context, move);
                        if (move.isPass() || context.trial().over() || context.state().mover() != mover) {
                            turn.clear();
                        } else {
                            if (turn.isEmpty()) {
                                turn.add(point(move.from()));
                            }
                            turn.add(point(move.to()));
                        }
                    }
                }
            } catch (final RuntimeException e) {
                warn("Ludii's Fanorona could not be played to find its chain rule (" + e + "); not supported");
                return null;
            }
            final Boolean allowed = rules.allowed();
            if (allowed == null) {
                warn("this Fanorona allows a chain to go on in the same direction at some times and not at others ("
                        + rules.evidence() + "); not supported");
                return null;
            }
            debug("Fanorona's chain rule from " + decisions + " decisions of Ludii's game: "
                    + (allowed ? "same-direction=allowed" : "same-direction=forbidden") + " (" + rules.evidence() + ")");
            return rules.option();
        }

        /** The point {file, rank} of a Ludii vertex of a Fanorona board. */
        private int[] point(final int site) {
            for (int f = 0; f < files; f++) {
                for (int r = 0; r < ranks; r++) {
                    if (siteAt[f][r] == site) {
                        return new int[] {f, r};
                    }
                }
            }
            return new int[] {-1, -1};
        }

        /** The stones of a Fanorona board: [file][rank], 0 empty, else the owner (1 or 2). */
        private int[][] stones(final Context context) {
            final int[][] board = new int[files][ranks];
            for (int f = 0; f < files; f++) {
                for (int r = 0; r < ranks; r++) {
                    board[f][r] = context.state().containerStates()[0].who(siteAt[f][r], SiteType.Vertex);
                }
            }
            return board;
        }

        /**
         * Fanorona: sowfan's {@code newgame} for this Ludii game, always without draw rules (Ludii's
         * Fanorona has none) and with the chain rule Ludii's game plays.
         */
        String fanoronaNewgame() {
            return "newgame " + sowfanGame + " repetition=off quiet-limit=off"
                    + (rules.isEmpty() ? "" : " " + rules);
        }

        int site(final int file, final int rank) {
            if (file < 0 || file >= files || rank < 0 || rank >= ranks) {
                return -1;
            }
            return siteAt[file][rank];
        }

        private static int count(final Context context, final int site) {
            return context.state().containerStates()[0].count(site, SiteType.Vertex);
        }

        int kalahTotalSeeds(final Context context) {
            int total = count(context, southStore) + count(context, northStore);
            for (int i = 0; i < pits; i++) {
                total += count(context, southPits[i]) + count(context, northPits[i]);
            }
            return total;
        }

        /** {@code <South pits A..>,<store>/<North pits a..>,<store> S|N} (protocol.md, Kalah). */
        String kalahFen(final Context context) {
            final StringBuilder fen = new StringBuilder();
            for (int i = 0; i < pits; i++) {
                fen.append(count(context, southPits[i])).append(',');
            }
            fen.append(count(context, southStore)).append('/');
            for (int i = 0; i < pits; i++) {
                fen.append(count(context, northPits[i])).append(',');
            }
            fen.append(count(context, northStore));
            fen.append(context.state().mover() == 1 ? " S" : " N");
            return fen.toString();
        }

        /** The Ludii vertex of a Kalah move letter, or -1. */
        int kalahSite(final String move) {
            if (move.length() != 1) {
                return -1;
            }
            final char c = move.charAt(0);
            if (c >= 'A' && c < 'A' + pits) {
                return southPits[c - 'A'];
            }
            if (c >= 'a' && c < 'a' + pits) {
                return northPits[c - 'a'];
            }
            return -1;
        }

        /**
         * {@code <ranks from the top, '/'-separated> w|b 0} (protocol.md, Fanorona): P1's stones
         * are White. The quiet counter is 0: the engine is told {@code quiet-limit=off}, as
         * Ludii's Fanorona has no draw rule.
         */
        String fanoronaFen(final Context context) {
            final StringBuilder fen = new StringBuilder();
            for (int rank = ranks - 1; rank >= 0; rank--) {
                int empty = 0;
                for (int file = 0; file < files; file++) {
                    final int who = context.state().containerStates()[0].who(siteAt[file][rank],
                            SiteType.Vertex);
                    if (who == 0) {
                        empty++;
                        continue;
                    }
                    if (empty > 0) {
                        fen.append(empty);
                        empty = 0;
                    }
                    fen.append(who == 1 ? 'W' : 'B');
                }
                if (empty > 0) {
                    fen.append(empty);
                }
                if (rank > 0) {
                    fen.append('/');
                }
            }
            fen.append(context.state().mover() == 1 ? " w 0" : " b 0");
            return fen.toString();
        }
    }
}
