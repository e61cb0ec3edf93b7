package sowfan.ludii;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.json.JSONObject;

import game.Game;
import utils.AIFactory;
// Current Ludii's packages; harness.sh rewrites them for Ludii 1.0.x (see ludii-api.sh).
import other.AI;
import other.GameLoader;
import other.context.Context;
import other.move.Move;
import other.trial.Trial;

/**
 * The AI loaded as Ludii's GUI loads it when a player picks "From JAR": through
 * {@code AIFactory.fromJson} with {@code "algorithm": "From JAR"}, from the jar file, by a class
 * loader of its own (this class is run without sowfan-ludii.jar on its class path and names no
 * class of it). Checks that it plays a whole game of Kalah, Fanorona (Telo), Afrika and Anywoli
 * with legal moves that are all sowfan's; that without the sowfan program it says so through
 * {@code supportsGame} and its name (what Ludii's GUI shows in its status panel), plays legal
 * moves and starts nothing; and that an engine that starts but never answers is ended after
 * the start-up wait, is not started again at the next move, and is then reported the same way.
 * Run by test.sh before LudiiMatch; exits 1 on a failure.
 */
public final class LudiiFromJar {
    private static int failures;

    private LudiiFromJar() {}

    public static void main(final String[] args) throws Exception {
        String jar = null;
        String ludDir = ".";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jar": jar = args[++i]; break;
                case "--lud-dir": ludDir = args[++i]; break;
                default: break; // LudiiMatch's options: not ours
            }
        }
        if (jar == null) {
            System.err.println("usage: LudiiFromJar --jar sowfan-ludii.jar [--lud-dir DIR]");
            System.exit(2);
        }
        System.out.println("From JAR, as Ludii's GUI loads an AI (" + jar + "):");
        final String program = System.getenv("SOWFAN_PATH");

        final AI first = load(jar);
        check(first != null, "AIFactory.fromJson loads sowfan.ludii.SowfanAI from the jar");
        if (first == null) {
            System.exit(1);
        }
        check(first.getClass().getClassLoader() != LudiiFromJar.class.getClassLoader(),
                "the class comes from the jar's own class loader, not the class path");
        check("sowfan".equals(first.name()), "its name is 'sowfan' (it is '" + first.name() + "')");
        final List<Game> games = Arrays.asList(
                GameLoader.loadGameFromName("Kalah.lud", new ArrayList<>()),
                GameLoader.loadGameFromName("Fanorona.lud", Collections.singletonList("Version/Telo")),
                GameLoader.loadGameFromFile(new File(ludDir, "Afrika.lud"), new ArrayList<>()),
                GameLoader.loadGameFromFile(new File(ludDir, "Anywoli.lud"), new ArrayList<>()));
        int player = 1;
        for (final Game game : games) {
            final AI sowfan = load(jar);
            check(sowfan.supportsGame(game), "supportsGame(" + game.name() + ")");
            playWhole(game, sowfan, player);
            player = 3 - player;
        }

        // No program: supportsGame false with the reason in the name; legal moves; no process.
        System.setProperty("sowfan.path", new File("/nonexistent/sowfan").getPath());
        final Game kalah = games.get(0);
        final AI missing = load(jar);
        final long childrenBefore = children();
        check(!missing.supportsGame(kalah), "without the program supportsGame is false (Ludii's GUI "
                + "then says so in its status panel and gives the player its default AI)");
        check(missing.name().startsWith("sowfan (unavailable: sowfan not found"),
                "the name says why: '" + missing.name() + "'");
        final Context context = start(kalah);
        missing.initAI(kalah, 1);
        final Move move = missing.selectAction(kalah, new Context(context), 0.2, -1, -1);
        check(move != null && context.model().verifyMoveLegal(context, move), "it still answers a legal move");
        check(String.valueOf(report(missing)).contains("sowfan not found"),
                "the analysis report says the move is not sowfan's: " + report(missing));
        check(children() == childrenBefore, "no process was started");
        missing.closeAI();

        // A program that starts and never answers: ended after the wait, not started again.
        final File dir = Files.createTempDirectory("sowfan-mute").toFile();
        final File counter = new File(dir, "starts");
        final File mute = new File(dir, "mute-engine");
        Files.write(mute.toPath(), ("#!/bin/sh\necho started >> '" + counter.getPath() + "'\nwhile read -r line; do :; done\n")
                .getBytes(StandardCharsets.UTF_8));
        check(mute.setExecutable(true), "a program that never answers is made");
        System.setProperty("sowfan.path", mute.getPath());
        System.setProperty("sowfan.startup", "1500");
        final AI silent = load(jar);
        silent.initAI(kalah, 1);
        long t0 = System.nanoTime();
        Move m1 = silent.selectAction(kalah, new Context(context), 0.2, -1, -1);
        final double firstSeconds = (System.nanoTime() - t0) / 1e9;
        check(m1 != null && context.model().verifyMoveLegal(context, m1), String.format(
                "the first move is legal (%.1f s: the 1.5 s start-up wait, then Ludii's UCT)", firstSeconds));
        check(children() == childrenBefore, "the program that never answered has been ended");
        t0 = System.nanoTime();
        m1 = silent.selectAction(kalah, new Context(context), 0.2, -1, -1);
        final double secondSeconds = (System.nanoTime() - t0) / 1e9;
        check(m1 != null && context.model().verifyMoveLegal(context, m1), "the second move is legal");
        check(starts(counter) == 1, "the program was started once, not at every move (" + starts(counter)
                + " starts)");
        check(secondSeconds < 1.4, String.format("the second move does not wait for it (%.2f s)", secondSeconds));
        check(!silent.supportsGame(kalah) && silent.name().contains("said nothing for 1500 ms"),
                "afterwards supportsGame is false and the name says why: '" + silent.name() + "'");
        silent.closeAI();
        System.clearProperty("sowfan.startup");
        if (program != null) {
            System.setProperty("sowfan.path", program);
        } else {
            System.clearProperty("sowfan.path");
        }
        System.out.println(failures == 0 ? "From JAR: every check holds" : "From JAR: " + failures + " FAILED");
        System.out.flush();
        System.exit(failures == 0 ? 0 : 1);
    }

    private static AI load(final String jar) {
        final JSONObject json = new JSONObject().put("AI", new JSONObject().put("algorithm", "From JAR")
                .put("JAR File", new File(jar).getAbsolutePath()).put("Class Name", "sowfan.ludii.SowfanAI"));
        return AIFactory.fromJson(json);
    }

    private static Context start(final Game game) {
        final Context context = new Context(game, new Trial(game));
        game.start(context);
        return context;
    }

    /** One whole game against Ludii's UCT: every move legal, every move of sowfan's its own. */
    private static void playWhole(final Game game, final AI sowfan, final int sowfanPlayer) {
        final AI uct = AIFactory.createAI("UCT");
        final Context context = start(game);
        sowfan.initAI(game, sowfanPlayer);
        uct.initAI(game, 3 - sowfanPlayer);
        int decisions = 0;
        int illegal = 0;
        int notSowfans = 0;
        while (!context.trial().over() && decisions < 3000) {
            final boolean sowfansTurn = context.state().mover() == sowfanPlayer;
            final AI ai = sowfansTurn ? sowfan : uct;
            final Move move = ai.selectAction(game, new Context(context), sowfansTurn ? 0.05 : 0.05, -1, -1);
            if (move == null || !context.model().verifyMoveLegal(context, move)) {
                illegal++;
                break;
            }
            if (sowfansTurn && report(sowfan) != null) {
                notSowfans++;
                System.out.println("    not sowfan's move: " + report(sowfan));
            }
            game.apply(context, move);
            decisions++;
        }
        sowfan.closeAI();
        uct.closeAI();
        check(context.trial().over() && illegal == 0 && notSowfans == 0, String.format(
                "%s: a whole game as P%d against UCT, %d decisions, %s, every move of sowfan's its own",
                game.name(), sowfanPlayer, decisions, illegal == 0 ? "all legal" : "AN ILLEGAL MOVE"));
    }

    private static String report(final AI ai) {
        return ai.generateAnalysisReport();
    }

    /** Processes this JVM has started that still run. */
    private static long children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
    }

    private static int starts(final File counter) throws IOException {
        return counter.exists() ? Files.readAllLines(counter.toPath()).size() : 0;
    }

    private static void check(final boolean ok, final String what) {
        if (!ok) {
            failures++;
        }
        System.out.println("  " + (ok ? "ok  " : "FAIL") + " " + what);
    }
}
