package sowfan.ludii;

/**
 * Whether a Ludii Fanorona lets a capture chain go on in the direction of the step just before
 * (sowfan's {@code same-direction=allowed}), found from its play rather than its name or text:
 * the AI plays random games in Ludii's compiled game and shows this class every decision in the
 * middle of a chain (no Ludii class here). At such a decision the geometry alone says whether a
 * straight-on capture exists (an approach: the next point on the line empty and not yet
 * visited this turn, an enemy stone on the one after); where it does, Ludii either offers that
 * step or not, which tells the rule. Ludii 1.0.8 and 1.3.13's Fanorona.lud offer it (their
 * "CaptureAgainIn" checks only that the point was not visited).
 *
 * <p>Such a step can only follow a withdrawal (an approach's captured line ends at a gap, so
 * nothing stands two points further on), and never on Telo's 3x3 board, whose lines are too
 * short: where no chance shows up, the traditional rule is kept, which there plays the same.
 */
final class FanoronaRules {
    private final int files;
    private final int ranks;
    private int offered;
    private int withheld;
    private String lastChance = "none seen";

    FanoronaRules(final int files, final int ranks) {
        this.files = files;
        this.ranks = ranks;
    }

    /**
     * Can a straight-on capture happen on a board of this size at all? It needs five points on a
     * line: the withdrawal's victim, its start, its landing, the next point, the victim beyond.
     * Not on Telo's 3x3 board, where the probe is not needed (either rule plays the same).
     */
    static boolean possible(final int files, final int ranks) {
        return Math.max(files, ranks) >= 5;
    }

    /**
     * One decision in the middle of a chain. {@code board[file][rank]}: 0 empty, else the player
     * (1 or 2) whose stone stands there; {@code mover} the player deciding; {@code visited} the
     * points (each {file, rank}) the moving stone has stood on this turn, in order: the start
     * first, its current point last (so at least two); {@code targets} the points Ludii offers
     * it to step to now. Returns whether a straight-on capture exists here (and was counted).
     */
    boolean observe(final int[][] board, final int mover, final int[][] visited, final int[][] targets) {
        if (visited.length < 2) {
            return false;
        }
        final int[] before = visited[visited.length - 2];
        final int[] at = visited[visited.length - 1];
        final int df = at[0] - before[0];
        final int dr = at[1] - before[1];
        final int[] next = {at[0] + df, at[1] + dr};
        final int[] beyond = {at[0] + 2 * df, at[1] + 2 * dr};
        // The step before went along a line of the board, so the line goes on from `at` in the
        // same direction wherever the next points are on the board (a diagonal stays on
        // strong points).
        if (!onBoard(next) || !onBoard(beyond) || board[next[0]][next[1]] != 0
                || board[beyond[0]][beyond[1]] == 0 || board[beyond[0]][beyond[1]] == mover
                || contains(visited, next)) {
            return false;
        }
        final String step = name(at) + "-" + name(next);
        if (contains(targets, next)) {
            offered++;
            lastChance = step + " offered";
        } else {
            withheld++;
            lastChance = step + " not offered";
        }
        return true;
    }

    /** Chances seen so far: straight-on captures that existed by the geometry. */
    int chances() {
        return offered + withheld;
    }

    /**
     * The rule: true when every chance seen was offered (at least one), false when none was
     * offered or none was seen (the traditional rule), null when Ludii offered some and withheld
     * others (no rule of sowfan's explains that).
     */
    Boolean allowed() {
        if (offered > 0 && withheld > 0) {
            return null;
        }
        return offered > 0;
    }

    /** The option for sowfan's {@code newgame} (empty for the default rule). */
    String option() {
        return Boolean.TRUE.equals(allowed()) ? "same-direction=allowed" : "";
    }

    /** What was seen, for messages. */
    String evidence() {
        return offered + " straight-on capture(s) offered, " + withheld + " not offered (last: "
                + lastChance + ")";
    }

    private boolean onBoard(final int[] p) {
        return p[0] >= 0 && p[0] < files && p[1] >= 0 && p[1] < ranks;
    }

    private static boolean contains(final int[][] points, final int[] p) {
        for (final int[] q : points) {
            if (q[0] == p[0] && q[1] == p[1]) {
                return true;
            }
        }
        return false;
    }

    private static String name(final int[] p) {
        return (char) ('a' + p[0]) + String.valueOf(p[1] + 1);
    }
}
