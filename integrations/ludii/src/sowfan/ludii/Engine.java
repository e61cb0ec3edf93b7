package sowfan.ludii;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A sowfan process spoken to through its protocol (protocol.md): one command a line on its
 * stdin, answers read from its stdout by a reader thread so that every wait has a time limit.
 * Knows no Ludii class, so it is the same for every Ludii version.
 */
final class Engine {
    /** What a wait gives back when the process said nothing more in time, or has ended. */
    static final class EngineException extends Exception {
        private static final long serialVersionUID = 1L;

        EngineException(final String message) {
            super(message);
        }
    }

    /** The reader thread puts this on the queue when the process's stdout ends. */
    private static final String END_OF_OUTPUT = "\u0000end of output";

    private final Process process;
    private final Writer stdin;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Log log;

    /** Where a line of the dialogue or a warning goes (stderr by default). */
    interface Log {
        void line(String text);
    }

    private Engine(final Process process, final Log log) {
        this.process = process;
        this.log = log;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        final Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (final IOException e) {
                // The process went away: the queue's end marker says so below.
            }
            lines.add(END_OF_OUTPUT);
        }, "sowfan-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** How long a started program has to answer {@code uci} and the options (ms). */
    static final long START_MILLIS = 10_000;

    /**
     * Starts the engine and waits for its {@code uciok}. A program that cannot be started, or
     * that does not answer in time, is ended (never left running) and reported.
     *
     * @param command the program and its arguments
     * @param options {@code name=value} pairs sent as {@code setoption} (Threads, Hash, TablebasePath, ...)
     */
    static Engine start(final List<String> command, final List<String[]> options, final Log log)
            throws EngineException {
        return start(command, options, log, START_MILLIS);
    }

    static Engine start(final List<String> command, final List<String[]> options, final Log log,
            final long startMillis) throws EngineException {
        final Process process;
        try {
            final ProcessBuilder builder = new ProcessBuilder(command);
            builder.redirectError(ProcessBuilder.Redirect.INHERIT);
            process = builder.start();
        } catch (final IOException e) {
            throw new EngineException("cannot start sowfan as " + command + ": " + e.getMessage()
                    + " (set -Dsowfan.path=/path/to/sowfan or SOWFAN_PATH, or put sowfan on the PATH)");
        }
        final Engine engine = new Engine(process, log);
        try {
            engine.send("uci");
            engine.readUntil("uciok", startMillis);
            for (final String[] option : options) {
                engine.send("setoption name " + option[0] + " value " + option[1]);
            }
            for (final String line : engine.sync(startMillis)) {
                if (line.startsWith("info string error")) {
                    log.line("sowfan: " + line);
                }
            }
        } catch (final EngineException e) {
            engine.quit();
            throw new EngineException(command.get(0) + " started but is not a working sowfan: "
                    + e.getMessage() + " (it has been ended)");
        }
        return engine;
    }

    /** The program to run: -Dsowfan.path, else $SOWFAN_PATH, else "sowfan" looked up on the PATH. */
    static String programPath() {
        try {
            return locate();
        } catch (final EngineException e) {
            return "sowfan";
        }
    }

    /**
     * The program to run, as {@link #programPath} finds it, or an exception that says where it
     * was looked for and how to tell the AI where it is.
     */
    static String locate() throws EngineException {
        final String property = System.getProperty("sowfan.path");
        if (property != null && !property.isEmpty()) {
            return runnable(property, "-Dsowfan.path");
        }
        final String env = System.getenv("SOWFAN_PATH");
        if (env != null && !env.isEmpty()) {
            return runnable(env, "SOWFAN_PATH");
        }
        final String path = System.getenv("PATH");
        if (path != null) {
            for (final String dir : path.split(File.pathSeparator)) {
                for (final String name : new String[] {"sowfan", "sowfan.exe"}) {
                    final File candidate = new File(dir.isEmpty() ? "." : dir, name);
                    if (candidate.isFile() && candidate.canExecute()) {
                        return candidate.getPath();
                    }
                }
            }
        }
        throw new EngineException("sowfan not found: no -Dsowfan.path, no SOWFAN_PATH and no sowfan on "
                + "the PATH (start Ludii with -Dsowfan.path=/path/to/sowfan, or set SOWFAN_PATH)");
    }

    private static String runnable(final String program, final String where) throws EngineException {
        final File file = new File(program);
        if (!file.isFile()) {
            throw new EngineException("sowfan not found: " + where + " is '" + program + "', which is "
                    + (file.exists() ? "not a file" : "not there"));
        }
        if (!file.canExecute()) {
            throw new EngineException("sowfan not runnable: " + where + " is '" + program
                    + "', which may not be executed (chmod +x?)");
        }
        return program;
    }

    /**
     * Engine options from -Dsowfan.options or $SOWFAN_OPTIONS: {@code name=value} pairs separated
     * by ';' (e.g. {@code Threads=2;Hash=256;TablebasePath=/data/tables}).
     */
    static List<String[]> configuredOptions() {
        String spec = System.getProperty("sowfan.options");
        if (spec == null) {
            spec = System.getenv("SOWFAN_OPTIONS");
        }
        final List<String[]> options = new ArrayList<>();
        if (spec == null) {
            return options;
        }
        for (final String item : spec.split(";")) {
            final int eq = item.indexOf('=');
            if (eq > 0) {
                options.add(new String[] {item.substring(0, eq).trim(), item.substring(eq + 1).trim()});
            }
        }
        return options;
    }

    void send(final String command) throws EngineException {
        log.line("> " + command);
        try {
            stdin.write(command);
            stdin.write('\n');
            stdin.flush();
        } catch (final IOException e) {
            throw new EngineException("sowfan does not read its input any more: " + e.getMessage());
        }
    }

    /** The next line, or an exception after {@code millis} ms or at the end of the output. */
    private String next(final long millis) throws EngineException {
        final String line;
        try {
            line = lines.poll(Math.max(1, millis), TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException("interrupted while waiting for sowfan");
        }
        if (line == null) {
            throw new EngineException("sowfan said nothing for " + millis + " ms");
        }
        if (line.equals(END_OF_OUTPUT)) {
            lines.add(END_OF_OUTPUT);
            throw new EngineException("sowfan has ended");
        }
        log.line("< " + line);
        return line;
    }

    /** Lines up to and including the first that starts with {@code prefix}. */
    List<String> readUntil(final String prefix, final long millis) throws EngineException {
        final long deadline = System.currentTimeMillis() + millis;
        final List<String> read = new ArrayList<>();
        while (true) {
            final String line = next(deadline - System.currentTimeMillis());
            read.add(line);
            if (line.startsWith(prefix)) {
                return read;
            }
        }
    }

    /**
     * Returns every line the commands sent so far print, up to a marker. The marker is
     * {@code query gameover}, not {@code isready}: the engine answers {@code isready} at once
     * even while earlier commands still wait behind a search that is just ending, whereas a
     * query runs in its turn, after them (protocol.md, "Timing and concurrency").
     */
    List<String> sync(final long millis) throws EngineException {
        send("query gameover");
        final List<String> read = readUntil("response ", millis);
        read.remove(read.size() - 1);
        return read;
    }

    /** Runs commands that answer nothing but errors; throws on the first {@code info string error}. */
    void commands(final String... commands) throws EngineException {
        for (final String command : commands) {
            send(command);
        }
        for (final String line : sync(10_000)) {
            if (line.startsWith("info string error")) {
                throw new EngineException(line);
            }
        }
    }

    /**
     * Searches the current position with the given {@code go} parameters and returns the
     * {@code bestmove} token. A search that runs {@code millis} past its plan is stopped.
     */
    String bestMove(final String goParameters, final long millis) throws EngineException {
        send("go " + goParameters);
        final long deadline = System.currentTimeMillis() + millis;
        boolean stopped = false;
        while (true) {
            final String line;
            try {
                line = next(deadline - System.currentTimeMillis());
            } catch (final EngineException late) {
                if (stopped || !process.isAlive()) {
                    throw late;
                }
                log.line("sowfan: no bestmove in time, sending stop");
                send("stop");
                stopped = true;
                return readBestMove(readUntil("bestmove", 5_000));
            }
            if (line.startsWith("info string error")) {
                throw new EngineException(line);
            }
            if (line.startsWith("bestmove")) {
                return readBestMove(java.util.Collections.singletonList(line));
            }
        }
    }

    private static String readBestMove(final List<String> read) throws EngineException {
        final String[] tokens = read.get(read.size() - 1).trim().split("\\s+");
        if (tokens.length < 2) {
            throw new EngineException("a bestmove without a move: " + read.get(read.size() - 1));
        }
        return tokens[1];
    }

    /** A position as {@code d} describes it. */
    static final class Position {
        /** The position string ("Fen:" line). */
        final String fen;
        /** The points of p1 and p2 ("Score:" line; final totals once the game is over). */
        final String score;
        /** The result and its reason once the game is over ("Result:" line), else null. */
        final String result;

        Position(final String fen, final String score, final String result) {
            this.fen = fen;
            this.score = score;
            this.result = result;
        }
    }

    /**
     * The position after {@code moves} (space-separated, may be empty) from {@code fen}, read
     * from {@code d}, whose last lines are "Fen: ...", "Score: ...", "Evaluation: ..." and
     * "To move: p1|p2" or "Result: ..." (protocol.md, "d").
     * Throws with the engine's message when it rejects the position or a move.
     */
    Position position(final String fen, final String moves) throws EngineException {
        send("position fen " + fen + (moves.isEmpty() ? "" : " moves " + moves));
        send("d");
        String error = null;
        String fenLine = null;
        String score = null;
        while (true) {
            final String line = next(10_000);
            if (line.startsWith("info string error") && error == null) {
                error = line;
            } else if (line.startsWith("Fen: ")) {
                fenLine = line.substring("Fen: ".length()).trim();
            } else if (line.startsWith("Score: ")) {
                score = line.substring("Score: ".length()).trim();
            } else if (fenLine != null && (line.equals("To move: p1") || line.equals("To move: p2")
                    || line.startsWith("Result: "))) {
                // The last line of d (a "To move: ..." line of the picture comes before Fen).
                if (error != null) {
                    throw new EngineException(error);
                }
                return new Position(fenLine, score,
                        line.startsWith("Result:") ? line.substring("Result:".length()).trim() : null);
            }
        }
    }

    /** The position string after {@code moves} from {@code fen}. */
    String fenAfter(final String fen, final String moves) throws EngineException {
        return position(fen, moves).fen;
    }

    /** Asks the engine to quit and ends the process if it has not within a second. */
    void quit() {
        try {
            send("quit");
        } catch (final EngineException e) {
            // Already gone.
        }
        kill();
    }

    /**
     * Ends the process: the time it takes to quit (a second), then a termination signal, then,
     * for a program that ignores it, a kill. Returns when it has ended (or after 3 s).
     */
    void kill() {
        try {
            if (process.waitFor(1, TimeUnit.SECONDS)) {
                return;
            }
            process.destroy();
            if (process.waitFor(1, TimeUnit.SECONDS)) {
                return;
            }
            process.destroyForcibly();
            process.waitFor(1, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    boolean alive() {
        return process.isAlive();
    }
}
