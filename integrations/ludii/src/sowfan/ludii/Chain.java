package sowfan.ludii;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A Fanorona turn as sowfan writes it (protocol.md, "Fanorona"): {@code c2-d2} (a paika) or a
 * chain of capture steps {@code d4-d3A-c3W-d2A}. Ludii plays the same turn as one decision per
 * step, so the chain is split into its steps; each prefix of a chain is itself a sowfan move,
 * which is how the board after each step is asked of the engine.
 */
final class Chain {
    /** Points as {file, rank}, 0-based: a1 is {0, 0}. The first is the start, then one per step. */
    final List<int[]> points;
    /** The suffix of each step: 'A', 'W', or ' ' for a paika. */
    final List<Character> kinds;
    private final String[] parts;

    private Chain(final List<int[]> points, final List<Character> kinds, final String[] parts) {
        this.points = Collections.unmodifiableList(points);
        this.kinds = Collections.unmodifiableList(kinds);
        this.parts = parts;
    }

    /** Parses a whole-turn token; throws IllegalArgumentException on anything else. */
    static Chain parse(final String token) {
        final String[] parts = token.split("-");
        if (parts.length < 2) {
            throw new IllegalArgumentException("'" + token + "' is not a Fanorona move");
        }
        final List<int[]> points = new ArrayList<>();
        final List<Character> kinds = new ArrayList<>();
        points.add(point(parts[0], token));
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i];
            char kind = ' ';
            final char last = part.isEmpty() ? ' ' : part.charAt(part.length() - 1);
            if (last == 'A' || last == 'W') {
                kind = last;
                part = part.substring(0, part.length() - 1);
            }
            if (kind == ' ' && parts.length > 2) {
                throw new IllegalArgumentException("'" + token + "': a chain step without A or W");
            }
            points.add(point(part, token));
            kinds.add(kind);
        }
        return new Chain(points, kinds, parts);
    }

    private static int[] point(final String text, final String token) {
        if (text.length() < 2 || text.charAt(0) < 'a' || text.charAt(0) > 'z') {
            throw new IllegalArgumentException("'" + token + "': '" + text + "' is not a point");
        }
        final int rank;
        try {
            rank = Integer.parseInt(text.substring(1));
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("'" + token + "': '" + text + "' is not a point");
        }
        return new int[] {text.charAt(0) - 'a', rank - 1};
    }

    int steps() {
        return kinds.size();
    }

    /** The sowfan move made of the first {@code n} steps (itself a legal move when the chain is). */
    String prefix(final int n) {
        final StringBuilder text = new StringBuilder(parts[0]);
        for (int i = 1; i <= n; i++) {
            text.append('-').append(parts[i]);
        }
        return text.toString();
    }
}
