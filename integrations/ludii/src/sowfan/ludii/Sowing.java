package sowfan.ludii;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import game.Game;
import game.types.board.SiteType;
// Current Ludii's package; build.sh rewrites it for Ludii 1.0.x (see ludii-api.sh).
import other.context.Context;

/**
 * Afrika and Anywoli as this folder's {@code Afrika.lud} and {@code Anywoli.lud} describe them:
 * which sowfan game and options a Ludii game is, its position string read off Ludii's board,
 * and the Ludii decisions a sowfan move stands for.
 *
 * <p>Both descriptions use a 2-row {@code mancalaBoard} without stores (the bottom row is
 * South's, lettered from the left; the top row is North's, lettered from the right) and a hand
 * per player for the captured seeds. An Anywoli relay lap is a second Ludii decision of the
 * same player with exactly one legal move (its house is marked by site state 1): a sowfan move
 * is one free decision followed by these forced ones ({@link #settle}).
 */
final class Sowing {
    /** The text both descriptions carry, so that a game of another origin is not taken for ours. */
    private static final String SIGNATURE = "sowfan (integrations/ludii)";
    private static final Pattern AFRIKA_KOMI =
            Pattern.compile("\\(score P2 \\(\\+ \\(count (?:Cell )?at:\\(handSite P2\\)\\) (-?\\d+)\\)\\)");
    private static final Pattern ANYWOLI_SEEDS =
            Pattern.compile("\\(start \\(place \"Seed\" \\(sites Track\\) counts:\\{(\\d+)\\}\\)\\)");

    final boolean anywoli;
    /** The sowfan {@code newgame} command for the Ludii game and options. */
    final String newgame;
    /** Ludii's vertices of South's pits A.. and North's pits a.. */
    final int[] south;
    final int[] north;
    /** Ludii's hand sites of South and North (their captured seeds). */
    private final int southHand;
    private final int northHand;

    private Sowing(final boolean anywoli, final String newgame, final int[] south, final int[] north,
            final int southHand, final int northHand) {
        this.anywoli = anywoli;
        this.newgame = newgame;
        this.south = south;
        this.north = north;
        this.southHand = southHand;
        this.northHand = northHand;
    }

    /** The mapping, or null for a game that is not one of the two descriptions. */
    static Sowing of(final Game game) {
        final String name = game.name();
        final boolean anywoli = "Anywoli".equals(name);
        if (!anywoli && !"Afrika".equals(name)) {
            return null;
        }
        final String raw = text(game, true);
        final String expanded = text(game, false);
        if (raw == null || expanded == null || !raw.contains(SIGNATURE)) {
            SowfanAI.warn(name + " is not integrations/ludii's " + name + ".lud; not supported");
            return null;
        }
        final int n = game.board().topology().vertices().size();
        final int pits = n / 2;
        if (n % 2 != 0 || (anywoli ? pits < 1 || pits > 13 : pits != 8)) {
            return null;
        }
        final int[] south = new int[pits];
        final int[] north = new int[pits];
        for (int site = 0; site < n; site++) {
            final int row = game.board().topology().vertices().get(site).row();
            final int col = game.board().topology().vertices().get(site).col();
            if (col < 0 || col >= pits || row < 0 || row > 1) {
                return null;
            }
            if (row == 0) {
                south[col] = site;
            } else {
                north[pits - 1 - col] = site; // North's a is above South's last pit
            }
        }
        // The hands follow the board: the first is P1's, the second P2's.
        final int p1Hand = n;
        final int p2Hand = n + 1;
        if (anywoli) {
            // P1 is South; sowfan's engine rules for endless games are not in the description.
            // sowfan's seeds option only sets its start position, and the AI always sends the
            // position: a description with another start rule (a test's) is played all the same.
            final Matcher seeds = ANYWOLI_SEEDS.matcher(expanded);
            return new Sowing(true, "newgame anywoli houses=" + pits
                    + (seeds.find() ? " seeds=" + seeds.group(1) : "") + " repetition=off quiet-limit=off",
                    south, north, p1Hand, p2Hand);
        }
        final Matcher komi = AFRIKA_KOMI.matcher(expanded);
        if (!komi.find()) {
            SowfanAI.warn("Afrika.lud without its komi term; not supported");
            return null;
        }
        final String points;
        switch (komi.group(1)) {
            case "0":
                points = "0";
                break;
            case "3": // the description's komi 2.5 (see Afrika.lud)
                points = "2.5";
                break;
            default:
                SowfanAI.warn("Afrika with komi " + komi.group(1) + " is not one of the description's");
                return null;
        }
        // P1 is North, who moves first.
        return new Sowing(false, "newgame afrika komi=" + points, south, north, p2Hand, p1Hand);
    }

    /** The game's description as written ({@code raw}) or with its options applied. */
    private static String text(final Game game, final boolean raw) {
        try {
            final String text = raw ? game.description().raw() : game.description().expanded();
            return text == null ? null : text.replaceAll("\\s+", " ");
        } catch (final RuntimeException e) {
            return null;
        }
    }

    private static int count(final Context context, final int site) {
        return context.containerState(context.containerId()[site]).count(site,
                context.containerId()[site] == 0 ? SiteType.Vertex : SiteType.Cell);
    }

    /** Whether Ludii's next decision is an Anywoli relay lap (forced: the marked house). */
    boolean relayPending(final Context context) {
        if (!anywoli || context.trial().over()) {
            return false;
        }
        for (int i = 0; i < south.length; i++) {
            if (context.containerState(0).state(south[i], SiteType.Vertex) == 1
                    || context.containerState(0).state(north[i], SiteType.Vertex) == 1) {
                return true;
            }
        }
        return false;
    }

    /** Plays the forced relay laps that follow a decision, so that a whole sowfan move is done. */
    void settle(final Game game, final Context context) {
        while (relayPending(context)) {
            final int legal = game.moves(context).moves().size();
            if (legal != 1) {
                throw new IllegalStateException("a relay lap with " + legal + " legal moves");
            }
            game.apply(context, game.moves(context).moves().get(0));
        }
    }

    /**
     * The position string (protocol.md): Afrika {@code <South A..H>,<captured>/<North
     * a..h>,<captured> N|S}; Anywoli the same with houses and stores, then {@code <side> 0
     * <last capturer> -} (turns without capture are not counted in Ludii: the AI plays with
     * {@code quiet-limit=off}; the first final-seed capturer matters only for an option the
     * description does not have).
     */
    String fen(final Context context) {
        final StringBuilder fen = new StringBuilder();
        for (final int site : south) {
            fen.append(count(context, site)).append(',');
        }
        fen.append(count(context, southHand)).append('/');
        for (final int site : north) {
            fen.append(count(context, site)).append(',');
        }
        fen.append(count(context, northHand));
        final boolean p1 = context.state().mover() == 1;
        if (anywoli) {
            final int last = context.state().temp();
            fen.append(p1 ? " S" : " N").append(" 0 ").append(last == 1 ? "S" : last == 2 ? "N" : "-")
               .append(" -");
        } else {
            fen.append(p1 ? " N" : " S");
        }
        return fen.toString();
    }

    /**
     * The fields of a position string that Ludii's state holds: Afrika all of it; Anywoli
     * the board, the side to move and the last capturer (not the counters Ludii does not keep).
     * In a finished game the side to move means nothing (Ludii leaves the last mover's): with
     * {@code over} it is left out.
     */
    String comparable(final String fen, final boolean over) {
        final String[] fields = fen.trim().split("\\s+");
        if (fields.length < 2) {
            return fen;
        }
        final String side = over ? "-" : fields[1];
        if (!anywoli) {
            return fields[0] + " " + side;
        }
        return fields[0] + " " + side + (fields.length > 3 ? " " + fields[3] : "");
    }
}
