package sowfan.ludii;

import java.io.File;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts sowfan for the AI and remembers a program that could not be started, so that a
 * missing or broken engine costs one attempt, not one a move (each attempt at an engine that
 * never answers costs the whole start-up wait), and so that the AI can say so where a Ludii user
 * looks ({@link SowfanAI#supportsGame}, its name). A failure is remembered for the program's
 * path as it was then: a program put there or changed afterwards is tried again. Knows no Ludii
 * class.
 */
final class EngineSupply {
    /** Failures by {@link #key} of the program: what went wrong. */
    private static final Map<String, String> FAILED = new ConcurrentHashMap<>();
    /** Programs started so far (for tests). */
    private static volatile int attempts;

    private EngineSupply() {}

    /**
     * Why sowfan cannot be used now, or null when it may be: the program is not found, or it
     * failed to start before and has not changed since.
     */
    static String problem() {
        final String program;
        try {
            program = Engine.locate();
        } catch (final Engine.EngineException e) {
            return e.getMessage();
        }
        return FAILED.get(key(program));
    }

    /** Starts the engine with the configured options, or says why it cannot (and remembers it). */
    static Engine start(final Engine.Log log, final long startMillis) throws Engine.EngineException {
        final String known = problem();
        if (known != null) {
            throw new Engine.EngineException(known);
        }
        final String program = Engine.locate();
        attempts++;
        try {
            return Engine.start(Collections.singletonList(program), Engine.configuredOptions(), log,
                    startMillis);
        } catch (final Engine.EngineException e) {
            FAILED.put(key(program), e.getMessage());
            throw e;
        }
    }

    /** Starts the engine, waiting -Dsowfan.startup milliseconds (default 10 s) for its answer. */
    static Engine start(final Engine.Log log) throws Engine.EngineException {
        long millis = Engine.START_MILLIS;
        final String startup = System.getProperty("sowfan.startup");
        if (startup != null) {
            try {
                millis = Math.max(1, Long.parseLong(startup.trim()));
            } catch (final NumberFormatException e) {
                log.line("sowfan.startup '" + startup + "' is not a number of milliseconds; waiting "
                        + millis + " ms");
            }
        }
        return start(log, millis);
    }

    /** The number of programs started (tried) so far. */
    static int attempts() {
        return attempts;
    }

    /** Forgets every failure (tests). */
    static void forget() {
        FAILED.clear();
    }

    private static String key(final String program) {
        final File file = new File(program);
        return file.getAbsolutePath() + "@" + file.lastModified() + "@" + file.length();
    }
}
