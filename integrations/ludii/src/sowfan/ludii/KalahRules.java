package sowfan.ludii;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which of sowfan's Kalah rule sets a Ludii Kalah plays, found from what the compiled game does
 * rather than from how its description is worded (Ludii 1.0.8 writes the capture test as
 * {@code (> (count at:"OppositePit") 0)}, Ludii 1.3 as {@code (> (count at:("OppositePit" (to)))
 * 0)}: one spelling check broke on the other).
 *
 * <p>The AI plays random games in Ludii ({@link Observation}s of each move: the board before,
 * the pit sown, the board after, who moves next, whether the game is over and its scores) and
 * keeps the candidates, among sowfan's eight combinations of {@code empty-capture},
 * {@code end} and {@code leftovers}, that predict every observation. A Ludii Kalah is played
 * when exactly one candidate is left; its options go into {@code newgame kalah ...}.
 *
 * <p>Knows no Ludii class: the board is sowfan's Kalah layout, {@code 2 * pits + 2} counts,
 * South's pits A.. then South's store, North's pits a.. then North's store (the sowing order).
 * Ludii's P1 is South.
 */
final class KalahRules {
    final boolean emptyCapture;
    /** {@code end=on-move}: the game ends when the player to move has no seeds; else any-row. */
    final boolean endOnMove;
    /** {@code leftovers=owner}: seeds left in a row at the end score for the row's owner. */
    final boolean leftoversOwner;

    KalahRules(final boolean emptyCapture, final boolean endOnMove, final boolean leftoversOwner) {
        this.emptyCapture = emptyCapture;
        this.endOnMove = endOnMove;
        this.leftoversOwner = leftoversOwner;
    }

    /** The options of {@code newgame kalah} (pits and seeds aside). */
    String options() {
        return "end=" + (endOnMove ? "on-move" : "any-row") + " empty-capture=" + emptyCapture
                + " leftovers=" + (leftoversOwner ? "owner" : "none");
    }

    @Override
    public String toString() {
        return options();
    }

    /** sowfan's eight rule sets. */
    static List<KalahRules> all() {
        final List<KalahRules> all = new ArrayList<>();
        for (final boolean capture : new boolean[] {false, true}) {
            for (final boolean onMove : new boolean[] {true, false}) {
                for (final boolean owner : new boolean[] {true, false}) {
                    all.add(new KalahRules(capture, onMove, owner));
                }
            }
        }
        return all;
    }

    /** One move of a Ludii game, in sowfan's layout. */
    static final class Observation {
        final int[] before;
        /** 0 South (Ludii's P1), 1 North. */
        final int mover;
        /** The index in the layout of the pit sown, or -1 for Ludii's Pass. */
        final int pit;
        final int[] after;
        /** Who moves next (meaningless once over). */
        final int nextMover;
        final boolean over;
        /** Ludii's scores of South and North once over (else ignored). */
        final int southScore;
        final int northScore;

        Observation(final int[] before, final int mover, final int pit, final int[] after,
                final int nextMover, final boolean over, final int southScore, final int northScore) {
            this.before = before.clone();
            this.mover = mover;
            this.pit = pit;
            this.after = after.clone();
            this.nextMover = nextMover;
            this.over = over;
            this.southScore = southScore;
            this.northScore = northScore;
        }

        @Override
        public String toString() {
            return (mover == 0 ? "South" : "North") + (pit < 0 ? " passes" : " sows pit " + pit) + " in "
                    + Arrays.toString(before) + " -> " + Arrays.toString(after)
                    + (over ? " (over, scores " + southScore + "-" + northScore + ")"
                            : " (" + (nextMover == 0 ? "South" : "North") + " to move)");
        }
    }

    /** Candidates narrowed observation by observation. */
    static final class Inference {
        private final int pits;
        private final List<KalahRules> candidates = new ArrayList<>(all());
        /** Why the last candidate to go went (for the message when none is left). */
        private String lastReason = "";
        private int observations;

        Inference(final int pits) {
            this.pits = pits;
        }

        void observe(final Observation o) {
            observations++;
            for (int i = candidates.size() - 1; i >= 0; i--) {
                final String why = candidates.get(i).contradiction(pits, o);
                if (why != null) {
                    if (candidates.size() == 1) {
                        lastReason = o + ": under " + candidates.get(i) + " " + why;
                    }
                    candidates.remove(i);
                }
            }
        }

        List<KalahRules> candidates() {
            return candidates;
        }

        int observations() {
            return observations;
        }

        /** Why no candidate is left (empty while some are). */
        String lastReason() {
            return lastReason;
        }
    }

    /**
     * Null when these rules predict the observation, else what they would have done instead.
     */
    String contradiction(final int pits, final Observation o) {
        final int n = pits;
        final int size = 2 * n + 2;
        if (o.before.length != size || o.after.length != size) {
            return "a board of " + o.before.length + " places, not " + size;
        }
        final int ownFirst = o.mover == 0 ? 0 : n + 1;
        final int ownStore = o.mover == 0 ? n : 2 * n + 1;
        final int otherStore = o.mover == 0 ? 2 * n + 1 : n;
        if (o.pit < 0) {
            // A Pass: only for a player without seeds, under end=on-move, and it ends the game.
            if (!endOnMove) {
                return "a Pass is played, under end=any-row the game would have ended before it";
            }
            if (rowSum(o.before, ownFirst, n) != 0) {
                return "a Pass by a player who has seeds";
            }
            if (!o.over) {
                return "the game goes on after the Pass of a player without seeds";
            }
            return scoresDiffer(n, o.before, o);
        }
        if (o.pit < ownFirst || o.pit >= ownFirst + n || o.before[o.pit] == 0) {
            return "pit " + o.pit + " is not a non-empty pit of the player to move";
        }
        final int[] board = o.before.clone();
        int seeds = board[o.pit];
        board[o.pit] = 0;
        int at = o.pit;
        while (seeds > 0) {
            at = (at + 1) % size;
            if (at == otherStore) {
                continue;
            }
            board[at]++;
            seeds--;
        }
        final boolean extra = at == ownStore;
        if (!extra && at >= ownFirst && at < ownFirst + n && board[at] == 1) {
            final int opposite = 2 * n - at;
            if (board[opposite] > 0 || emptyCapture) {
                board[ownStore] += board[opposite] + 1;
                board[opposite] = 0;
                board[at] = 0;
            }
        }
        final int nextMover = extra ? o.mover : 1 - o.mover;
        final boolean southEmpty = rowSum(board, 0, n) == 0;
        final boolean northEmpty = rowSum(board, n + 1, n) == 0;
        final boolean nextEmpty = nextMover == 0 ? southEmpty : northEmpty;
        if (endOnMove) {
            // The game ends when the player to move has no seeds: at once or by Ludii's forced
            // Pass on the next decision; it goes on while that player has seeds.
            if (o.over && !nextEmpty) {
                return "the game ends though the player to move has seeds";
            }
        } else if (o.over != (southEmpty || northEmpty)) {
            return o.over ? "the game ends though both rows hold seeds"
                          : "the game goes on though a row is empty";
        }
        if (o.over) {
            return scoresDiffer(n, board, o);
        }
        if (!Arrays.equals(board, o.after)) {
            return "the board would be " + Arrays.toString(board);
        }
        if (o.nextMover != nextMover) {
            return (nextMover == o.mover ? "the mover would move again" : "the other player would move");
        }
        return null;
    }

    private String scoresDiffer(final int n, final int[] board, final Observation o) {
        final int south = board[n] + (leftoversOwner ? rowSum(board, 0, n) : 0);
        final int north = board[2 * n + 1] + (leftoversOwner ? rowSum(board, n + 1, n) : 0);
        if (south != o.southScore || north != o.northScore) {
            return "the scores would be " + south + "-" + north;
        }
        return null;
    }

    private static int rowSum(final int[] board, final int first, final int n) {
        int sum = 0;
        for (int i = first; i < first + n; i++) {
            sum += board[i];
        }
        return sum;
    }
}
