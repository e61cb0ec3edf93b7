package sowfan.ludii;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import game.Game;

/**
 * The AI recognises a Ludii Kalah by what its compiled rules do, not by how they are written:
 * Ludii's own Kalah.lud, its capture test spelled as Ludii 1.0.8 and as Ludii 1.3 write it and
 * reworded, all map to the same sowfan rules; a Kalah that captures without the opposite
 * pit's seeds maps to {@code empty-capture=true}; one whose capture is none of sowfan's is
 * refused. Run by LudiiMatch (test.sh) before its games.
 */
final class KalahRecognition {
    /** The capture test of Ludii's Kalah.lud, in the spelling of 1.0.8 or of 1.3. */
    private static final Pattern CAPTURE_TEST = Pattern.compile(
            "\\(> \\(count at:(?:\"OppositePit\"|\\(\"OppositePit\" \\(to\\)\\))\\) 0\\)");
    private static final String LUDII_RULES = "end=on-move empty-capture=false leftovers=owner";
    private static final String DEFINES =
            "(define \"OppositeOfTo\" (if (is Mover P1) (+ (to) \"Columns\") (- (to) \"Columns\")))\n"
            + "(define \"OppositeOf\" (if (is Mover P1) (+ #1 \"Columns\") (- #1 \"Columns\")))\n";

    private KalahRecognition() {}

    /** Prints one line a description and returns the number of failures. */
    static int check(final String kalahLud) throws IOException {
        System.out.println("Kalah recognised by its rules' effect (random games in Ludii's compiled game):");
        final Matcher m = CAPTURE_TEST.matcher(kalahLud);
        if (!m.find() || !kalahLud.contains("(define \"Columns\"")) {
            System.out.println("  FAIL: this Ludii's Kalah.lud has no capture test of a known spelling to vary");
            return 1;
        }
        int failures = 0;
        failures += expect("Ludii's Kalah.lud as it is", kalahLud, LUDII_RULES);
        failures += expect("capture test spelled as in Ludii 1.0.8",
                vary(kalahLud, m, "(> (count at:\"OppositeOfTo\") 0)"), LUDII_RULES);
        failures += expect("capture test spelled as in Ludii 1.3",
                vary(kalahLud, m, "(> (count at:(\"OppositeOf\" (to))) 0)"), LUDII_RULES);
        failures += expect("capture test reworded",
                vary(kalahLud, m, "(< 0 (count at:(\"OppositeOf\" (to))))"), LUDII_RULES);
        failures += expect("no opposite-pit test (empty capture)",
                vary(kalahLud, m, "(is In (to) (sites Mover))"),
                "end=on-move empty-capture=true leftovers=owner");
        failures += expect("captures only from 2 opposite seeds (not a sowfan rule)",
                vary(kalahLud, m, "(> (count at:(\"OppositeOf\" (to))) 1)"), null);
        return failures;
    }

    private static String vary(final String lud, final Matcher m, final String test) {
        return DEFINES + lud.substring(0, m.start()) + test + lud.substring(m.end());
    }

    private static int expect(final String label, final String text, final String rules) throws IOException {
        final Game game = LudiiMatch.loadText(text, "kalah-variant");
        final long start = System.nanoTime();
        final SowfanAI.Variant v = SowfanAI.Variant.of(game);
        final double ms = (System.nanoTime() - start) / 1e6;
        final String got = v == null ? null : v.rules;
        final boolean ok = rules == null ? got == null : rules.equals(got);
        System.out.printf("  %-4s %-56s -> %s (%.0f ms)%n", ok ? "ok" : "FAIL", label,
                got == null ? "not supported" : got, ms);
        return ok ? 0 : 1;
    }
}
